// DNABERT-S as a tool offers it: the descriptor loads onto the backend already current (no second backend
// start) and converts into a folder that loads to the same vectors; the same contract as ESM-2's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dnabertDescriptor } from '../src/index.js';
import { tinyDir, tinyInputs } from './parity-helpers.js';
import { startCompute } from '@virnucpro/compute';

describe('dnabertDescriptor', () => {
  let dir: string;
  beforeAll(async () => {
    await startCompute({ backend: 'cpu' });
    dir = mkdtempSync(join(tmpdir(), 'dnabert-descriptor-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('loads onto the current backend and embeds like the original after convert', async () => {
    const embedder = await dnabertDescriptor.load(tinyDir);
    expect(embedder.dim).toBe(64);
    expect(embedder.config.numLayers).toBe(2);
    expect(dnabertDescriptor.title(embedder)).toBe('DNABERT-S');
    expect(tf.getBackend()).toBe('cpu');
    const original = await embedder.embed(tinyInputs.sequences);
    embedder.dispose();

    const dest = join(dir, 'converted');
    const converted = await dnabertDescriptor.convert(tinyDir, dest);
    expect(converted).toMatchObject({ dest, tensors: expect.any(Number), parameters: expect.any(Number) });
    await expect(dnabertDescriptor.convert(tinyDir, dest)).rejects.toThrow(/already exists/);
    const reloaded = await dnabertDescriptor.load(dest);
    expect((await reloaded.embed(tinyInputs.sequences)).map((v) => Array.from(v))).toEqual(original.map((v) => Array.from(v)));
    reloaded.dispose();
  });

  it('names what keeps a path from being a model folder', () => {
    expect(dnabertDescriptor.checkPath(join(dir, 'nothing'), '--model')).toMatch(/model not found \(--model must be a DNABERT model folder\)/);
    expect(dnabertDescriptor.checkPath(join(tinyDir, 'config.json'), 'SRC')).toMatch(/SRC must be a DNABERT model folder .*not a file/);
    expect(dnabertDescriptor.checkPath(dir, 'SRC')).toMatch(/not a DNABERT model folder; missing config.json, tokenizer.json, weights/);
    expect(dnabertDescriptor.checkPath(tinyDir, '--model')).toBeUndefined();
  });
});
