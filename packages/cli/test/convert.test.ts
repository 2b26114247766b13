import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedMeans, maxAbsDiff, maxRowDiff, readEmbeddings, runCli, tempLeftovers, testData } from './cli-harness.js';

const esm2Dir = join(testData, 'esm2');
const dnabertDir = join(testData, 'dnabert', 'tiny');
const summaryLine = /converted (ESM-2|DNABERT) .+ -> .+: \d+ tensors, [\d,]+ parameters, [\d,]+ bytes in [\d.]+ s/;

function sequencesOf(fixture: string): string[] {
  return (JSON.parse(readFileSync(join(fixture, 'inputs.json'), 'utf8')) as { sequences: string[] }).sequences;
}

describe('virnucpro convert', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'convert-'));
    writeFileSync(join(dir, 'proteins.faa'), sequencesOf(esm2Dir).map((s, i) => `>prot_${i}\n${s}\n`).join(''));
    writeFileSync(join(dir, 'dna.fa'), sequencesOf(dnabertDir).map((s, i) => `>seq_${i}\n${s}\n`).join(''));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Embeds with the CLI (wasm backend) and returns the file it wrote. */
  async function embed(model: 'esm2' | 'dnabert', modelPath: string, name: string) {
    const output = join(dir, `${name}.safetensors`);
    const input = join(dir, model === 'esm2' ? 'proteins.faa' : 'dna.fa');
    const r = runCli(['embed', model, '--model', modelPath, '--input', input, '--output', output, '--backend', 'wasm', '--quiet']);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    return readEmbeddings(output);
  }

  it('lists both models in --help', () => {
    const r = runCli(['convert', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/convert esm2 <src> <dest>/);
    expect(r.stdout).toMatch(/convert dnabert <src> <dest>/);
  });

  it.each(['model.safetensors', 'pytorch_model.bin', 'fair_esm.pt'])(
    'esm2 from %s: the converted folder embeds like the source and the reference',
    async (layout) => {
      const src = join(esm2Dir, layout);
      const dest = join(dir, `esm2-${layout}`);
      const r = runCli(['convert', 'esm2', src, dest]);
      expect(r.status).toBe(0);
      expect(r.stderr.trim()).toMatch(summaryLine);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(readdirSync(dest)).toContain('model.json');
      expect(JSON.parse(readFileSync(join(dest, 'model.json'), 'utf8')).userDefinedMetadata.format).toBe('virnucpro-esm2');
      expect(tempLeftovers(dir)).toEqual([]);

      const fromSource = await embed('esm2', src, `esm2-src-${layout}`);
      const fromConverted = await embed('esm2', dest, `esm2-dest-${layout}`);
      expect(fromConverted.shape).toEqual(fromSource.shape);
      expect(fromConverted.ids).toEqual(fromSource.ids);
      expect(maxAbsDiff(fromConverted.values, fromSource.values)).toBeLessThanOrEqual(1e-6);
      const means = await expectedMeans(join(esm2Dir, 'expected.safetensors'), fromSource.ids.length);
      expect(maxRowDiff(fromConverted, means)).toBeLessThanOrEqual(1e-5);
    },
    60_000,
  );

  it.each(['model.safetensors', 'pytorch_model.bin'])(
    'dnabert from %s: the converted folder is a model folder that embeds like the source and the reference',
    async (weights) => {
      // A folder holding only this weight file, so the converter cannot pick the other one.
      const src = join(dir, `dnabert-src-${weights}`);
      mkdirSync(src);
      for (const f of ['config.json', 'tokenizer.json', weights]) copyFileSync(join(dnabertDir, f), join(src, f));
      const dest = join(dir, `dnabert-${weights}`);
      const r = runCli(['convert', 'dnabert', src, dest]);
      expect(r.status).toBe(0);
      expect(r.stderr.trim()).toMatch(summaryLine);
      expect(readdirSync(dest).sort()).toEqual(expect.arrayContaining(['config.json', 'model.json', 'tokenizer.json']));
      expect(readdirSync(dest).some((f) => f.endsWith('.bin'))).toBe(true);
      expect(readFileSync(join(dest, 'tokenizer.json'))).toEqual(readFileSync(join(dnabertDir, 'tokenizer.json')));
      expect(tempLeftovers(dir)).toEqual([]);

      const fromSource = await embed('dnabert', src, `dnabert-src-${weights}`);
      const fromConverted = await embed('dnabert', dest, `dnabert-dest-${weights}`);
      expect(fromConverted.ids).toEqual(fromSource.ids);
      expect(maxAbsDiff(fromConverted.values, fromSource.values)).toBeLessThanOrEqual(1e-6);
      const means = await expectedMeans(join(dnabertDir, 'expected.safetensors'), fromSource.ids.length);
      expect(maxRowDiff(fromConverted, means)).toBeLessThanOrEqual(1e-5);
    },
    60_000,
  );

  it('rejects a missing SRC with exit 2, naming the path, and creates nothing', () => {
    for (const model of ['esm2', 'dnabert']) {
      const dest = join(dir, `missing-${model}`);
      const r = runCli(['convert', model, join(dir, 'no-such-model'), dest]);
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/no-such-model: .* not found/);
      expect(existsSync(dest)).toBe(false);
    }
  });

  it('refuses to replace an existing DEST and leaves it untouched', () => {
    const dest = join(dir, 'taken');
    mkdirSync(dest);
    writeFileSync(join(dest, 'keep.txt'), 'mine');
    const r = runCli(['convert', 'esm2', join(esm2Dir, 'model.safetensors'), dest]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/taken: already exists/);
    expect(readdirSync(dest)).toEqual(['keep.txt']);
  });

  it('names what a DNABERT SRC folder lacks (exit 2)', () => {
    const r = runCli(['convert', 'dnabert', esm2Dir, join(dir, 'not-dnabert')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/not a DNABERT model folder; missing tokenizer\.json/);
    expect(existsSync(join(dir, 'not-dnabert'))).toBe(false);
  });

  it('fails on an unreadable checkpoint without leaving DEST or a staging folder', () => {
    const bad = join(dir, 'broken.safetensors');
    writeFileSync(bad, 'this is not a safetensors file');
    const dest = join(dir, 'broken-out');
    const r = runCli(['convert', 'esm2', bad, dest]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/broken\.safetensors/);
    expect(existsSync(dest)).toBe(false);
    expect(tempLeftovers(dir)).toEqual([]);
  });
});
