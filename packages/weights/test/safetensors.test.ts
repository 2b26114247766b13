import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bfloat16ToFloat32,
  float16ToFloat32,
  float32ToFloat16Bits,
  openSafetensors,
  readSafetensors,
  toFloat32,
  writeSafetensors,
  type TensorData,
} from '../src/index.js';
import { fixture } from './paths.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weights-st-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('readSafetensors on Python-written fixtures', () => {
  it('reads the esm2-tiny HF checkpoint: names, shapes, metadata', async () => {
    const { tensors, metadata } = await readSafetensors(fixture('esm2-tiny', 'model.safetensors'));
    const config = JSON.parse(await readFile(fixture('esm2-tiny', 'config.json'), 'utf8'));
    expect(metadata).toEqual({ format: 'pt' });
    const emb = tensors.get('esm.embeddings.word_embeddings.weight')!;
    expect(emb.dtype).toBe('float32');
    expect(emb.shape).toEqual([config.vocab_size, config.hidden_size]);
    expect(emb.data).toBeInstanceOf(Float32Array);
    for (let i = 0; i < config.num_hidden_layers; i++) {
      expect(tensors.get(`esm.encoder.layer.${i}.intermediate.dense.weight`)!.shape).toEqual([config.intermediate_size, config.hidden_size]);
    }
    // Random non-trivial weights: not all zeros, all finite.
    expect(emb.data.some((x) => x !== 0)).toBe(true);
    expect((emb.data as Float32Array).every((x) => Number.isFinite(x))).toBe(true);
  });

  it('reads I32 tensors: batch.input_ids / attention_mask agree with the token ids in inputs.json', async () => {
    const inputs = JSON.parse(await readFile(fixture('esm2-tiny', 'inputs.json'), 'utf8')) as { token_ids: number[][] };
    const { tensors } = await readSafetensors(fixture('esm2-tiny', 'expected.safetensors'));
    const ids = tensors.get('batch.input_ids')!;
    const mask = tensors.get('batch.attention_mask')!;
    expect(ids.dtype).toBe('int32');
    expect(ids.data).toBeInstanceOf(Int32Array);
    const [rows, width] = ids.shape;
    expect(rows).toBe(inputs.token_ids.length);
    inputs.token_ids.forEach((row, r) => {
      const got = [...ids.data.subarray(r * width, (r + 1) * width)] as number[];
      expect(got.slice(0, row.length)).toEqual(row);
      expect(got.slice(row.length).every((x) => x === 1)).toBe(true); // <pad> = 1
      const m = [...mask.data.subarray(r * width, (r + 1) * width)] as number[];
      expect(m.reduce((a, b) => a + b, 0)).toBe(row.length);
    });
  });

  it('re-writing what was read reproduces the Python-written files byte for byte', async () => {
    for (const file of [
      fixture('esm2-tiny', 'model.safetensors'),
      fixture('esm2-tiny', 'expected.safetensors'),
      fixture('dnabert-tiny', 'model.safetensors'),
      fixture('mlp-virnucpro', 'expected.safetensors'),
    ]) {
      const { tensors, metadata } = await readSafetensors(file);
      const out = join(dir, 'rewrite.safetensors');
      await writeSafetensors(out, tensors, metadata);
      expect(Buffer.compare(await readFile(out), await readFile(file)), file).toBe(0);
    }
  });

  it('reads lazily: open, list, read one tensor, and a filter skips the rest', async () => {
    const file = await openSafetensors(fixture('dnabert-tiny', 'model.safetensors'));
    try {
      expect(file.names.length).toBe(28);
      const t = await file.readTensor('embeddings.word_embeddings.weight');
      expect(t.shape).toEqual([4096, 64]);
      // Into the caller's memory (a GPU's page-locked buffer, cut at an offset of a larger block): the same values,
      // in the bytes it was handed, and nothing outside them written.
      const block = new Uint8Array(3 * 4096 * 64 * 4).fill(7);
      const given: Uint8Array[] = [];
      const into = await file.readTensor('embeddings.word_embeddings.weight', (bytes) => given[given.push(block.subarray(512, 512 + bytes)) - 1]);
      expect(into.data.buffer).toBe(block.buffer);
      expect(into.data.byteOffset).toBe(512);
      expect(Array.from(into.data as Float32Array)).toEqual(Array.from(t.data as Float32Array));
      expect(block.subarray(0, 512).every((b) => b === 7) && block.subarray(512 + given[0].byteLength).every((b) => b === 7)).toBe(true);
      await expect(file.readTensor('embeddings.word_embeddings.weight', (bytes) => new Uint8Array(bytes + 4))).rejects.toThrow(/gave \d+ bytes/);
      await expect(file.readTensor('nope')).rejects.toThrow(/no tensor named "nope"/);
    } finally {
      await file.close();
    }
    const some = await readSafetensors(fixture('dnabert-tiny', 'model.safetensors'), { filter: (n) => n.startsWith('embeddings.') });
    expect([...some.tensors.keys()].every((n) => n.startsWith('embeddings.'))).toBe(true);
    expect(some.tensors.size).toBeGreaterThan(0);
  });
});

describe('writeSafetensors / readSafetensors round trip', () => {
  const all: Record<string, TensorData> = {
    f64: { dtype: 'float64', shape: [2], data: new Float64Array([Math.PI, -1e300]) },
    f32: { dtype: 'float32', shape: [2, 3], data: new Float32Array([1, -2, 3.5, 0, -0, 1e-40]) },
    f16: { dtype: 'float16', shape: [3], data: new Uint16Array([0x3c00, 0xc000, 0x7bff]) },
    bf16: { dtype: 'bfloat16', shape: [1, 2], data: new Uint16Array([0x3f80, 0xc049]) },
    i64: { dtype: 'int64', shape: [2], data: new BigInt64Array([-(2n ** 62n), 7n]) },
    i32: { dtype: 'int32', shape: [1], data: new Int32Array([-5]) },
    i16: { dtype: 'int16', shape: [1], data: new Int16Array([-300]) },
    i8: { dtype: 'int8', shape: [2], data: new Int8Array([-1, 127]) },
    u8: { dtype: 'uint8', shape: [2], data: new Uint8Array([0, 255]) },
    b: { dtype: 'bool', shape: [3], data: new Uint8Array([1, 0, 1]) },
    scalar: { dtype: 'float32', shape: [], data: new Float32Array([42]) },
    empty: { dtype: 'float32', shape: [0, 4], data: new Float32Array(0) },
  };

  it('keeps every dtype, shape and value, plus metadata', async () => {
    const path = join(dir, 'all.safetensors');
    await writeSafetensors(path, all, { format: 'pt', note: 'ü' });
    const { tensors, metadata } = await readSafetensors(path);
    expect(metadata).toEqual({ format: 'pt', note: 'ü' });
    expect(new Set(tensors.keys())).toEqual(new Set(Object.keys(all)));
    for (const [name, t] of Object.entries(all)) {
      const back = tensors.get(name)!;
      expect(back.dtype, name).toBe(t.dtype);
      expect(back.shape, name).toEqual(t.shape);
      expect(back.data.constructor, name).toBe(t.data.constructor);
      expect([...back.data], name).toEqual([...t.data]);
    }
  });

  it('lays the file out like the reference writer: 8-byte padded header, aligned data', async () => {
    const path = join(dir, 'all.safetensors');
    await writeSafetensors(path, all);
    const bytes = await readFile(path);
    const n = Number(bytes.readBigUInt64LE(0));
    expect(n % 8).toBe(0);
    const header = JSON.parse(bytes.subarray(8, 8 + n).toString());
    expect('__metadata__' in header).toBe(false);
    for (const [name, info] of Object.entries(header) as [string, { data_offsets: number[] }][]) {
      expect(info.data_offsets[0] % all[name].data.BYTES_PER_ELEMENT, name).toBe(0);
    }
    // Largest alignment first (I64 ranks above F64 in the reference enum).
    expect(Object.keys(header).slice(0, 2)).toEqual(['i64', 'f64']);
  });

  it('refuses inconsistent tensors and leaves no file behind', async () => {
    const path = join(dir, 'bad.safetensors');
    await expect(
      writeSafetensors(path, { x: { dtype: 'float32', shape: [3], data: new Float32Array(2) } }),
    ).rejects.toThrow(/tensor "x": shape \[3\] needs 3 elements, data has 2/);
    await expect(
      writeSafetensors(path, { x: { dtype: 'int64', shape: [1], data: new Float32Array(1) } }),
    ).rejects.toThrow(/dtype int64 needs 8-byte elements/);
    expect((await readdir(dir)).filter((f) => f.includes('bad'))).toEqual([]);
  });

  it('is atomic: a failed rename removes the temp file and keeps the target', async () => {
    const target = join(dir, 'is-a-dir');
    await mkdir(join(target, 'child'), { recursive: true });
    await expect(writeSafetensors(target, all)).rejects.toThrow();
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('sharded checkpoints', () => {
  it('reads every shard named by model.safetensors.index.json', async () => {
    const shardDir = join(dir, 'sharded');
    await mkdir(shardDir, { recursive: true });
    const a = { 'a.weight': { dtype: 'float32', shape: [2], data: new Float32Array([1, 2]) } } satisfies Record<string, TensorData>;
    const b = { 'b.weight': { dtype: 'float16', shape: [1], data: new Uint16Array([0x3c00]) } } satisfies Record<string, TensorData>;
    await writeSafetensors(join(shardDir, 'model-00001-of-00002.safetensors'), a);
    await writeSafetensors(join(shardDir, 'model-00002-of-00002.safetensors'), b);
    await writeFile(
      join(shardDir, 'model.safetensors.index.json'),
      JSON.stringify({
        metadata: { total_size: 10 },
        weight_map: { 'a.weight': 'model-00001-of-00002.safetensors', 'b.weight': 'model-00002-of-00002.safetensors' },
      }),
    );
    const { tensors, metadata } = await readSafetensors(join(shardDir, 'model.safetensors.index.json'));
    expect([...tensors.keys()].sort()).toEqual(['a.weight', 'b.weight']);
    expect([...toFloat32(tensors.get('b.weight')!)]).toEqual([1]);
    expect(metadata.total_size).toBe('10');
  });

  it('names a missing shard', async () => {
    const p = join(dir, 'missing.index.json');
    await writeFile(p, JSON.stringify({ weight_map: { x: 'gone.safetensors' } }));
    await expect(readSafetensors(p)).rejects.toThrow(/shard gone\.safetensors is missing/);
  });
});

describe('corrupt files give one clear error naming the file', () => {
  it('truncated data, impossible header length, bad dtype, size mismatch', async () => {
    const good = await readFile(fixture('mlp-virnucpro', 'expected.safetensors'));
    const truncated = join(dir, 'truncated.safetensors');
    await writeFile(truncated, good.subarray(0, good.length - 10));
    await expect(readSafetensors(truncated)).rejects.toThrow(/truncated\.safetensors: tensor "real_merged_probabilities": data_offsets end .* past the data block/);

    const hugeHeader = join(dir, 'huge.safetensors');
    const b = Buffer.alloc(16);
    b.writeBigUInt64LE(1n << 40n, 0);
    await writeFile(hugeHeader, b);
    await expect(readSafetensors(hugeHeader)).rejects.toThrow(/huge\.safetensors: not a safetensors file/);

    const mk = async (name: string, header: object, dataBytes: number) => {
      const json = Buffer.from(JSON.stringify(header));
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(json.length));
      const p = join(dir, name);
      await writeFile(p, Buffer.concat([len, json, Buffer.alloc(dataBytes)]));
      return p;
    };
    await expect(readSafetensors(await mk('dtype.safetensors', { x: { dtype: 'F8_E4M3', shape: [1], data_offsets: [0, 1] } }, 1))).rejects.toThrow(
      /tensor "x": unsupported dtype "F8_E4M3"/,
    );
    await expect(readSafetensors(await mk('size.safetensors', { x: { dtype: 'F32', shape: [2], data_offsets: [0, 4] } }, 4))).rejects.toThrow(
      /tensor "x": data_offsets \[0, 4\] hold 4 bytes, but float32 \[2\] needs 8/,
    );
    await expect(readSafetensors(join(dir, 'no-such.safetensors'))).rejects.toThrow(/no-such\.safetensors/);
  });
});

describe('half precision widening (IEEE 754 / bfloat16 reference values)', () => {
  it('float16 bit patterns', () => {
    const bits = new Uint16Array([0x3c00, 0xc000, 0x7bff, 0x0001, 0x0400, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0x3555]);
    const f = float16ToFloat32(bits);
    expect([...f.subarray(0, 8)]).toEqual([1, -2, 65504, 2 ** -24, 2 ** -14, -0, Infinity, -Infinity]);
    expect(Number.isNaN(f[8])).toBe(true);
    expect(f[9]).toBeCloseTo(0.333251953125, 12);
  });

  it('bfloat16 bit patterns', () => {
    expect([...bfloat16ToFloat32(new Uint16Array([0x3f80, 0xc049, 0x7f80, 0x0000]))]).toEqual([1, Math.fround(-3.140625), Infinity, 0]);
  });

  it('float32 → float16 rounds to nearest even and round-trips every finite half', () => {
    const all = new Uint16Array(65536).map((_, i) => i);
    const back = float32ToFloat16Bits(float16ToFloat32(all));
    for (let i = 0; i < 65536; i++) {
      const exp = (i >> 10) & 0x1f;
      if (exp === 0x1f && (i & 0x3ff) !== 0) continue; // NaN payloads are not preserved
      if (back[i] !== i) throw new Error(`half 0x${i.toString(16)} came back as 0x${back[i].toString(16)}`);
    }
    // 1 + 2^-11 is exactly halfway between 1 and the next half: ties to even (1).
    expect([...float32ToFloat16Bits(new Float32Array([1 + 2 ** -11, 1 + 3 * 2 ** -11, 70000]))]).toEqual([0x3c00, 0x3c02, 0x7c00]);
  });

  it('toFloat32 widens every numeric dtype', () => {
    expect([...toFloat32({ dtype: 'int64', shape: [2], data: new BigInt64Array([3n, -4n]) })]).toEqual([3, -4]);
    expect([...toFloat32({ dtype: 'bool', shape: [2], data: new Uint8Array([1, 0]) })]).toEqual([1, 0]);
    const f = new Float32Array([1]);
    expect(toFloat32({ dtype: 'float32', shape: [1], data: f })).toBe(f);
  });
});
