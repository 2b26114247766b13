import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '@virnucpro/ops';
import { readSafetensors } from '@virnucpro/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { runEmbed } from '../src/commands/embed-run.js';

// `virnucpro embed` packs records on their token counts and then embeds them: with a model that offers its tokenizer
// apart (`tokenized`, DNABERT-S's BPE), each record is tokenized once and its ids go to the batch.
describe('runEmbed with a model split at its tokenizer', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embed-tokenizes-once-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const records = Array.from({ length: 30 }, (_, i) => 'ACGT'.repeat(1 + (i % 9)) + 'A'.repeat(i % 4));

  /** One "token" per character plus two specials; counts every tokenization of each sequence. */
  function countingModel(refuse?: string) {
    const encoded = new Map<string, number>();
    const encode = (s: string) => {
      if (s === refuse) throw new Error('not a sequence this model reads');
      encoded.set(s, (encoded.get(s) ?? 0) + 1);
      return Int32Array.from([1, ...Array.from(s, (c) => c.charCodeAt(0)), 2]);
    };
    const vector = (ids: Int32Array) => Float32Array.from([ids.length, ids[1]]);
    const embedder: Embedder = {
      name: 'counting',
      dim: 2,
      tokenCount: (s) => encode(s).length,
      embed: async (sequences) => sequences.map((s) => vector(encode(s))),
      tokenized: { encode, embed: async (ids) => ids.map(vector) },
      dispose() {},
    };
    return { embedder, encoded };
  }

  it('tokenizes every record once, packs on that count and embeds those ids, in input order', async () => {
    const input = join(dir, 'dna.fa');
    writeFileSync(input, records.map((s, i) => `>r${i}\n${s}\n`).join(''));
    const model = countingModel();
    const output = join(dir, 'out.safetensors');
    const summary = await runEmbed({ embedder: model.embedder, compute: { backend: 'cpu', precision: 'fp32' }, input, output, tokenBudget: 64, window: 8, metadata: {} });
    expect([...model.encoded.keys()].sort()).toEqual([...new Set(records)].sort());
    for (const s of new Set(records)) expect(model.encoded.get(s)).toBe(records.filter((r) => r === s).length);
    expect(summary.tokens).toBe(records.reduce((n, s) => n + s.length + 2, 0));
    expect(summary.batches).toBeGreaterThan(3);
    const { tensors } = await readSafetensors(output);
    expect(Array.from(tensors.get('embeddings')!.data as Float32Array)).toEqual(records.flatMap((s) => [s.length + 2, s.charCodeAt(0)]));
  });

  it('a record the tokenizer refuses stops the run with a usage error naming it, and leaves no output', async () => {
    const input = join(dir, 'bad.fa');
    writeFileSync(input, '>ok\nACGT\n>bad one\nXXXX\n');
    const output = join(dir, 'bad.safetensors');
    await expect(runEmbed({ embedder: countingModel('XXXX').embedder, compute: { backend: 'cpu', precision: 'fp32' }, input, output, tokenBudget: 64, window: 8, metadata: {} }))
      .rejects.toThrow(/bad\.fa: record 2 \(>bad\): not a sequence this model reads/);
    expect(existsSync(output)).toBe(false);
  });
});
