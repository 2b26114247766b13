// One pipeline: `virnucpro predict` runs @virnucpro/predict's runPrediction — the same composition predict() runs —
// and adds only checks, the checkpoint, progress and signals; it does not compose the stages itself again.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const source = readFileSync(new URL('../src/pipeline/run-predict.ts', import.meta.url), 'utf8');
const imported = (from: string) => [...source.matchAll(/import\s*\{([^}]*)\}\s*from\s*'([^']+)'/g)].filter((m) => m[2] === from).flatMap((m) => m[1].split(',').map((n) => n.trim().replace(/^type\s+/, '')));

describe('the CLI\'s predict path', () => {
  it('calls the package\'s pipeline, and none of the stages it is composed of', () => {
    expect(imported('@virnucpro/predict')).toContain('runPrediction');
    expect(source).toMatch(/runPrediction\(\{/);
    for (const stage of ['runEmbedding', 'writePredictions', 'framesFrom', 'refinementFor', 'ThreadedMlp']) expect(source, stage).not.toMatch(new RegExp(`\\b${stage}\\b`));
  });
});
