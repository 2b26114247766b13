import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFeaturesModel } from '../src/features-model.js';
import { ModelLoadError } from '../src/model-load-error.js';

const demo = fileURLToPath(new URL('../../../test-data/demo-models/', import.meta.url));
const esm = join(demo, 'esm2-demo');
const dnabert = join(demo, 'dnabert-s-demo');
const missing = join(demo, 'no-such-model');
// DNABERT-S cut short: refused only once its file has been opened and read, after a missing ESM-2 folder is.
const tmp = mkdtempSync(join(tmpdir(), 'features-load-'));
const truncated = join(tmp, 'dnabert-s-truncated');
cpSync(dnabert, truncated, { recursive: true });
const weights = readFileSync(join(truncated, 'model.safetensors'));
writeFileSync(join(truncated, 'model.safetensors'), weights.subarray(0, weights.length >> 1));

// The two embedding models load at once (ESM-2's file is read while DNABERT-S is uploaded); which error a worker
// reports must not depend on which load fails first.
describe('createFeaturesModel loading both models at once', () => {
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  it.each([
    ['DNABERT-S alone', { esm, dnabert: truncated }, `DNABERT-S model ${truncated}`],
    ['ESM-2 alone', { esm: missing, dnabert }, `ESM-2 model ${missing}`],
    // ESM-2's missing folder fails at once, before DNABERT-S's read does: DNABERT-S's error still wins, as when they loaded in turn.
    ['both (DNABERT-S named, as when they loaded in turn)', { esm: missing, dnabert: truncated }, `DNABERT-S model ${truncated}`],
  ] as const)('a model that cannot be read, %s: a ModelLoadError naming it', async (_case, paths, named) => {
    const loading = createFeaturesModel(paths, { backend: 'cpu', precision: 'fp32' });
    await expect(loading).rejects.toBeInstanceOf(ModelLoadError);
    await expect(loading).rejects.toThrow(`cannot load the ${named}`);
  });

});
