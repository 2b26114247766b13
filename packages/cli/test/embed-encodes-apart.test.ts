import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChunkRefusal, type ChunkEncoder, type Embedder } from '@virnucpro/ops';
import { afterAll, describe, expect, it } from 'vitest';
import { runEmbed } from '../src/commands/embed-run.js';

// With a model whose tokenizer also runs on other threads (`tokenized.startEncoder`, DNABERT-S's BpePool), embed sends
// the records in chunks and takes their ids back in input order: the file is the one the main thread's encode makes.
describe('runEmbed with the ids made apart (startEncoder)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embed-encodes-apart-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const compute = { backend: 'cpu', precision: 'fp32' } as const;

  const encode = (s: string, refuse?: string) => {
    if (s === refuse) throw new Error('not a sequence this model reads');
    return Int32Array.from([1, ...Array.from(s, (c) => c.charCodeAt(0)), 2]);
  };
  const vector = (ids: Int32Array) => Float32Array.from([ids.length, ids[1], ids[ids.length - 2]]);

  /** An encoder whose chunks come back out of order (a later chunk often first), as a pool's threads may answer. */
  function model(options: { refuse?: string; apart: boolean }) {
    const state = { chunks: 0, closed: 0 };
    let turn = 0;
    const encoder: ChunkEncoder<string> = {
      encode: (items) => {
        state.chunks++;
        const delay = (turn++ * 7) % 5;
        return new Promise((resolve, reject) =>
          setTimeout(() => {
            const at = items.indexOf(options.refuse as string);
            if (options.refuse !== undefined && at >= 0) reject(new ChunkRefusal(at, 'not a sequence this model reads'));
            else resolve(items.map((s) => encode(s)));
          }, delay),
        );
      },
      close: async () => {
        state.closed++;
      },
    };
    const embedder: Embedder = {
      name: 'counting',
      dim: 3,
      tokenCount: (s) => encode(s, options.refuse).length,
      embed: async (sequences) => sequences.map((s) => vector(encode(s, options.refuse))),
      tokenized: {
        encode: (s) => encode(s, options.refuse),
        embed: async (ids) => ids.map(vector),
        ...(options.apart ? { startEncoder: async () => encoder } : {}),
      },
      dispose() {},
    };
    return { embedder, state };
  }

  function randomRecords(count: number, seed: number): string[] {
    let s = seed;
    const rand = () => ((s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const alphabet = 'ACGTACGTacgtNRY-é';
    return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(rand() * 40) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join(''));
  }

  it('writes the bytes the main thread writes, across chunk boundaries, and closes the encoder', async () => {
    const records = randomRecords(3_001, 11); // 11 chunks of 256 and a partial one, 8 in flight
    const input = join(dir, 'dna.fa');
    writeFileSync(input, records.map((s, i) => `>r${i}\n${s}\n`).join(''));
    const here = join(dir, 'here.safetensors');
    const apart = join(dir, 'apart.safetensors');
    await runEmbed({ embedder: model({ apart: false }).embedder, compute, input, output: here, tokenBudget: 256, window: 64, metadata: {} });
    const m = model({ apart: true });
    const summary = await runEmbed({ embedder: m.embedder, compute, input, output: apart, tokenBudget: 256, window: 64, metadata: {} });
    expect(summary.sequences).toBe(records.length);
    expect(m.state.chunks).toBe(12);
    expect(m.state.closed).toBe(1);
    expect(readFileSync(apart).equals(readFileSync(here))).toBe(true);
  });

  it('an encoder given (started while the model loaded) is the one used, not startEncoder, and is closed', async () => {
    const records = randomRecords(700, 12);
    const input = join(dir, 'given.fa');
    writeFileSync(input, records.map((s, i) => `>r${i}\n${s}\n`).join(''));
    const here = join(dir, 'given-here.safetensors');
    const given = join(dir, 'given.safetensors');
    await runEmbed({ embedder: model({ apart: false }).embedder, compute, input, output: here, tokenBudget: 256, window: 64, metadata: {} });
    const own = model({ apart: true });
    const early = model({ apart: true });
    const encoder = early.embedder.tokenized!.startEncoder!();
    await runEmbed({ embedder: own.embedder, compute, input, output: given, tokenBudget: 256, window: 64, metadata: {}, encoder });
    expect(own.state.chunks).toBe(0);
    expect(early.state.chunks).toBe(3);
    expect(early.state.closed).toBe(1);
    expect(readFileSync(given).equals(readFileSync(here))).toBe(true);
    // An embedder that takes no ids leaves the encoder given unused, and closed.
    const unused = model({ apart: true });
    const noIds = { ...model({ apart: false }).embedder, tokenized: undefined };
    await runEmbed({ embedder: noIds, compute, input, output: join(dir, 'no-ids.safetensors'), tokenBudget: 256, window: 64, metadata: {}, encoder: unused.embedder.tokenized!.startEncoder!() });
    expect(unused.state.chunks).toBe(0);
    expect(unused.state.closed).toBe(1);
  });

  it('a refused record stops the run with the error naming it, before a later record that fails its checks', async () => {
    const records = randomRecords(600, 5);
    records[300] = 'XXXX'; // second chunk: refused
    records[590] = ''; // third chunk: empty, read before the second chunk's ids come back
    const input = join(dir, 'bad.fa');
    writeFileSync(input, records.map((s, i) => `>r${i} some description\n${s}\n`).join(''));
    const output = join(dir, 'bad.safetensors');
    const m = model({ refuse: 'XXXX', apart: true });
    await expect(runEmbed({ embedder: m.embedder, compute, input, output, tokenBudget: 256, window: 64, metadata: {} })).rejects.toThrow(
      /bad\.fa: record 301 \(>r300\): not a sequence this model reads/,
    );
    expect(m.state.closed).toBe(1);
    expect(existsSync(output)).toBe(false);
  });

  it('a record that fails its checks is named as on the main thread when no earlier record is refused', async () => {
    const records = randomRecords(600, 6);
    records[590] = '';
    const input = join(dir, 'empty.fa');
    writeFileSync(input, records.map((s, i) => `>r${i}\n${s}\n`).join(''));
    const output = join(dir, 'empty.safetensors');
    const m = model({ apart: true });
    await expect(runEmbed({ embedder: m.embedder, compute, input, output, tokenBudget: 256, window: 64, metadata: {}, residue: 'nucleotide' })).rejects.toThrow(
      /empty\.fa: record 591 \(>r590\): empty sequence; expected at least one nucleotide/,
    );
    expect(m.state.closed).toBe(1);
  });
});
