// ESM-2 as a tool offers it: the descriptor loads onto the backend already current (no second backend start)
// and converts into a folder that loads to the same vectors; the same contract as DNABERT-S's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { esm2Descriptor } from '../src/index.js';
import { fixtureDir, loadFixture, type EsmFixture } from './fixture.js';
import { startCompute } from '@virnucpro/compute';

describe('esm2Descriptor', () => {
  let fixture: EsmFixture;
  let dir: string;
  beforeAll(async () => {
    await startCompute({ backend: 'cpu' });
    fixture = await loadFixture();
    dir = mkdtempSync(join(tmpdir(), 'esm2-descriptor-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads onto the current backend and embeds like the original after convert', async () => {
    const embedder = await esm2Descriptor.load(fixtureDir);
    expect(embedder.dim).toBe(64);
    expect(embedder.config.numLayers).toBe(2);
    expect(esm2Descriptor.title(embedder)).toBe(`ESM-2 ${embedder.name}`);
    expect(tf.getBackend()).toBe('cpu');
    const original = await embedder.embed(fixture.sequences);
    // residues + BOS + EOS of every protein embedded, counted where it tokenizes
    expect(embedder.counters?.()).toEqual({ fp32Recomputes: 0, tokens: fixture.sequences.reduce((a, s) => a + s.length + 2, 0) });
    embedder.dispose();

    const dest = join(dir, 'converted');
    const converted = await esm2Descriptor.convert(fixtureDir, dest);
    expect(converted).toMatchObject({ dest, tensors: expect.any(Number), parameters: expect.any(Number) });
    await expect(esm2Descriptor.convert(fixtureDir, dest)).rejects.toThrow(/already exists/);
    const reloaded = await esm2Descriptor.load(dest);
    expect((await reloaded.embed(fixture.sequences)).map((v) => Array.from(v))).toEqual(original.map((v) => Array.from(v)));
    reloaded.dispose();
  });

  it('names a missing path; unknown residues follow the `unknown` setting', async () => {
    expect(esm2Descriptor.checkPath(join(dir, 'nothing'), '--model')).toMatch(/model not found/);
    expect(esm2Descriptor.checkPath(fixtureDir, '--model')).toBeUndefined();
    const strict = await esm2Descriptor.load(fixtureDir);
    const lenient = await esm2Descriptor.load(fixtureDir, { settings: { unknown: 'unk' } });
    expect(() => strict.tokenCount('MK*J')).toThrow();
    expect(lenient.tokenCount('MK*J')).toBe(5);
    strict.dispose();
    lenient.dispose();
  });
});
