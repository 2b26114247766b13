import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '@virnucpro/ops';
import { readSafetensors } from '@virnucpro/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { runEmbed } from '../src/commands/embed-run.js';

// `virnucpro embed` keeps as many batches in flight as predict's GPU workers do: on cuda the next batch's embed is
// called while the one before still computes (its kernels then queue behind that batch's); elsewhere one at a time.
describe('runEmbed: batches in flight', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embed-in-flight-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const input = join(dir, 'proteins.faa');
  writeFileSync(input, Array.from({ length: 40 }, (_, i) => `>p${i}\n${'MKV'.repeat(5 + (i % 7))}\n`).join(''));

  /** A model whose batches take a few milliseconds, recording how many run at once. */
  function slowModel() {
    let running = 0;
    let most = 0;
    const embedder: Embedder = {
      name: 'slow',
      dim: 2,
      tokenCount: (s: string) => s.length + 2,
      async embed(sequences: string[]) {
        most = Math.max(most, ++running);
        await new Promise((resolve) => setTimeout(resolve, 3));
        running--;
        return sequences.map((s) => Float32Array.from([s.length, s.charCodeAt(0)]));
      },
      dispose() {},
    } as unknown as Embedder;
    return { embedder, most: () => most };
  }

  it.each([
    ['cuda', 2],
    ['wasm', 1],
    ['cpu', 1],
  ] as const)('on %s: at most %d at once, every record embedded in input order', async (backend, expected) => {
    const model = slowModel();
    const output = join(dir, `${backend}.safetensors`);
    const summary = await runEmbed({
      embedder: model.embedder,
      compute: { backend, precision: 'fp32' },
      input,
      output,
      tokenBudget: 40,
      window: 8,
      metadata: {},
    });
    expect(model.most()).toBe(expected);
    expect(summary.sequences).toBe(40);
    const { tensors, metadata } = await readSafetensors(output);
    expect(JSON.parse(metadata.ids)).toEqual(Array.from({ length: 40 }, (_, i) => `p${i}`));
    expect(Array.from(tensors.get('embeddings')!.data as Float32Array).filter((_, i) => i % 2 === 0)).toEqual(Array.from({ length: 40 }, (_, i) => 3 * (5 + (i % 7))));
  });
});
