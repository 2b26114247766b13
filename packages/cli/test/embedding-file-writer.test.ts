import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeSafetensors } from '@virnucpro/weights';
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddingFileWriter, outputSyncEveryBytes } from '../src/commands/embedding-file-writer.js';

// `embed`'s output, vector by vector, must be the bytes of the whole tensor written at once, however the writer
// gathers vectors before writing them (blocks that end inside a vector, vectors that are views into larger arrays).
describe('EmbeddingFileWriter', () => {
  const dir = mkdtempSync(join(tmpdir(), 'embedding-file-writer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** `rows` vectors of `dim` values, row r as a view into one array (even r) or as an array of its own (odd r). */
  function vectors(rows: number, dim: number) {
    const all = Float32Array.from({ length: rows * dim }, (_, i) => Math.sin(i) * (i % 7919));
    const vector = (r: number) => (r % 2 === 0 ? all.subarray(r * dim, (r + 1) * dim) : all.slice(r * dim, (r + 1) * dim));
    return { all, vector };
  }
  const dim = 768;
  const { vector } = vectors(2000, dim);

  it.each([
    [768, 3000], // 9.2 MB
    [7000, 1400], // 39 MB: more blocks than are written at once
  ])('dim %d, %d vectors: the same bytes as the whole tensor written at once, published only on commit', async (dim, rows) => {
    const sub = mkdtempSync(join(dir, 'bytes-'));
    const { all, vector } = vectors(rows, dim);
    const ids = Array.from({ length: rows }, (_, r) => `seq${r}`);
    const expectedPath = join(sub, 'expected.safetensors');
    await writeSafetensors(expectedPath, { embeddings: { dtype: 'float32', shape: [rows, dim], data: all } }, { ids: JSON.stringify(ids) });
    const output = join(sub, 'streamed.safetensors');
    const writer = new EmbeddingFileWriter(output, dim, () => ({ ids: JSON.stringify(ids) }));
    for (let r = 0; r < rows; r++) await writer.append(vector(r));
    expect(writer.rows).toBe(rows);
    expect(existsSync(output)).toBe(false);
    await writer.commit();
    expect(readFileSync(output).equals(readFileSync(expectedPath))).toBe(true);
    expect(readdirSync(sub).sort()).toEqual(['expected.safetensors', 'streamed.safetensors']);
  });

  /** The whole tensor written at once, as `embed`'s output must be, and the metadata of `rows` ids. */
  async function expected(sub: string, rows: number, dim: number, all: Float32Array) {
    const ids = Array.from({ length: rows }, (_, r) => `seq${r}`);
    const path = join(sub, 'expected.safetensors');
    await writeSafetensors(path, { embeddings: { dtype: 'float32', shape: [rows, dim], data: all } }, { ids: JSON.stringify(ids) });
    return { ids, bytes: readFileSync(path) };
  }

  // With a plan (N and the metadata known ahead) the vectors go straight into the output; a plan that turns out
  // wrong, fails, or comes only once the writer has to wait for it changes how, never the bytes.
  const rows = 3000;
  it.each([
    ['right, known from the start', rows, 0],
    ['right, settled after 1,000 vectors (held until then)', rows, 1000],
    ['right, settled only once commit() waits for it', rows, Infinity],
    ['wrong about N (a header 10 digits longer)', rows * 100_000, 0],
    ['wrong about the ids (one 40 characters longer)', rows, 0, 'longer'],
    ['failed', -1, 1000],
  ] as [string, number, number, string?][])('a plan %s: the same bytes', async (_, plannedRows, settleAtRow, variant) => {
    const sub = mkdtempSync(join(dir, 'plan-'));
    const { all, vector } = vectors(rows, dim);
    const truth = await expected(sub, rows, dim, all);
    const plannedIds = variant === 'longer' ? truth.ids.map((id, r) => (r === 7 ? `${id}${'x'.repeat(40)}` : id)) : truth.ids;
    let settle!: () => void;
    const plan = new Promise<{ rows: number; metadata: Record<string, string> }>((resolve, reject) => {
      settle = () => (plannedRows < 0 ? reject(new Error('no plan')) : resolve({ rows: plannedRows, metadata: { ids: JSON.stringify(plannedIds) } }));
    });
    const output = join(sub, 'streamed.safetensors');
    const writer = new EmbeddingFileWriter(output, dim, () => ({ ids: JSON.stringify(truth.ids) }), plan);
    // The file the vectors were written into during the run (after 2,000 vectors, past the plan settling at 1,000).
    let written: number | undefined;
    for (let r = 0; r < rows; r++) {
      if (r === settleAtRow) settle();
      await writer.append(vector(r));
      const file = r === 2000 && readdirSync(sub).find((name) => name !== 'expected.safetensors');
      if (file) written = statSync(join(sub, file)).ino; // none while the plan is awaited: the vectors are held
    }
    const committed = writer.commit();
    if (settleAtRow === Infinity) setTimeout(settle, 20);
    await committed;
    expect(readFileSync(output).equals(truth.bytes)).toBe(true);
    expect(readdirSync(sub).sort()).toEqual(['expected.safetensors', 'streamed.safetensors']);
    // With a right plan settled in time the vectors were written where they are published; otherwise copied there.
    expect(statSync(output).ino === written).toBe(variant === undefined && plannedRows === rows && settleAtRow <= 1000);
  });

  it('discard while an append waits for the plan: nothing is created after it', async () => {
    const sub = mkdtempSync(join(dir, 'discard-waiting-'));
    let settle!: (plan: { rows: number; metadata: Record<string, string> }) => void;
    const writer = new EmbeddingFileWriter(join(sub, 'out.safetensors'), 7000, () => ({}), new Promise((resolve) => (settle = resolve)));
    const big = new Float32Array(7000);
    let waiting: Promise<void> | undefined;
    for (let r = 0; r < 3000 && !waiting; r++) {
      // Past 64 MiB held, an append waits for the plan.
      const appended = writer.append(big);
      const pending = await Promise.race([appended.then(() => false), new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 20))]);
      if (pending) waiting = appended;
    }
    expect(waiting).toBeDefined();
    await writer.discard();
    settle({ rows: 3000, metadata: {} });
    await expect(waiting).rejects.toThrow(/discarded/);
    expect(readdirSync(sub)).toEqual([]);
  });

  it('discard with a plan leaves nothing behind', async () => {
    const sub = mkdtempSync(join(dir, 'discard-plan-'));
    const writer = new EmbeddingFileWriter(join(sub, 'out.safetensors'), dim, () => ({}), Promise.resolve({ rows: 2000, metadata: {} }));
    for (let r = 0; r < 2000; r++) await writer.append(vector(r));
    expect(readdirSync(sub)).toHaveLength(1); // the output's temporary file
    await writer.discard();
    expect(readdirSync(sub)).toEqual([]);
  });

  it('writes an empty tensor when nothing was appended', async () => {
    const expectedPath = join(dir, 'empty-expected.safetensors');
    await writeSafetensors(expectedPath, { embeddings: { dtype: 'float32', shape: [0, dim], data: new Float32Array(0) } }, {});
    const output = join(dir, 'empty.safetensors');
    await new EmbeddingFileWriter(output, dim).commit();
    expect(readFileSync(output).equals(readFileSync(expectedPath))).toBe(true);
  });

  it('discard leaves nothing behind, the scratch file included', async () => {
    const sub = mkdtempSync(join(dir, 'discard-'));
    const writer = new EmbeddingFileWriter(join(sub, 'out.safetensors'), dim);
    for (let r = 0; r < 2000; r++) await writer.append(vector(r)); // writes still under way
    expect(readdirSync(sub)).toHaveLength(1); // the scratch file
    await writer.discard();
    expect(readdirSync(sub)).toEqual([]);
  });

  it('refuses a vector of another size', async () => {
    const writer = new EmbeddingFileWriter(join(dir, 'bad.safetensors'), dim);
    await expect(writer.append(new Float32Array(dim - 1))).rejects.toThrow(/767 values, expected 768/);
    await writer.discard();
  });
});

describe('outputSyncEveryBytes', () => {
  it('syncs the output every 64 MiB unless VIRNUCPRO_OUTPUT_SYNC_MIB says otherwise (0: at the end only); nonsense is refused by name', () => {
    expect(outputSyncEveryBytes({})).toBe(64 << 20);
    expect(outputSyncEveryBytes({ VIRNUCPRO_OUTPUT_SYNC_MIB: '0' })).toBe(0);
    expect(outputSyncEveryBytes({ VIRNUCPRO_OUTPUT_SYNC_MIB: '16' })).toBe(16 << 20);
    expect(() => outputSyncEveryBytes({ VIRNUCPRO_OUTPUT_SYNC_MIB: '1.5' })).toThrow(/VIRNUCPRO_OUTPUT_SYNC_MIB: '1.5' is not a whole number/);
    expect(() => outputSyncEveryBytes({ VIRNUCPRO_OUTPUT_SYNC_MIB: '-1' })).toThrow(/VIRNUCPRO_OUTPUT_SYNC_MIB/);
  });
});
