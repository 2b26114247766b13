import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSafetensors, readTfjsArtifact, toFloat32, writeTfjsArtifact, type TensorData } from '../src/index.js';
import { fixture } from './paths.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weights-tfjs-'));
  await tf.setBackend('cpu');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const bytesOf = (t: TensorData) => Buffer.from(t.data.buffer, t.data.byteOffset, t.data.byteLength);

describe('tfjs artifacts', () => {
  it('round-trips the esm2-tiny weights across many small shards (tensors straddle shard boundaries)', async () => {
    const { tensors } = await readSafetensors(fixture('esm2-tiny', 'model.safetensors'));
    const out = join(dir, 'esm2');
    await writeTfjsArtifact(out, tensors, { model: 'esm2-tiny', layers: 2 }, { shardSizeBytes: 100_000 });
    const files = (await readdir(out)).sort();
    const totalBytes = [...tensors.values()].reduce((n, t) => n + t.data.byteLength, 0);
    const shards = Math.ceil(totalBytes / 100_000);
    expect(files).toEqual(['model.json', ...Array.from({ length: shards }, (_, i) => `group1-shard${i + 1}of${shards}.bin`)].sort());
    expect((await stat(join(out, `group1-shard1of${shards}.bin`))).size).toBe(100_000);

    const back = await readTfjsArtifact(out);
    expect(back.metadata).toEqual({ model: 'esm2-tiny', layers: 2 });
    expect(back.modelJson.modelTopology).toBeNull();
    expect([...back.tensors.keys()]).toEqual([...tensors.keys()]);
    for (const [name, t] of tensors) {
      expect(back.tensors.get(name)!.shape, name).toEqual(t.shape);
      expect(Buffer.compare(bytesOf(back.tensors.get(name)!), bytesOf(t)), name).toBe(0);
    }
  });

  it('is readable by tfjs-core io.decodeWeights (float32, float16 quantization, int32, bool)', async () => {
    const tensors: Record<string, TensorData> = {
      w: { dtype: 'float32', shape: [2, 3], data: new Float32Array([1, 2, 3, 4, 5, 6.5]) },
      h: { dtype: 'float16', shape: [3], data: new Uint16Array([0x3c00, 0xc100, 0x3555]) },
      steps: { dtype: 'int64', shape: [], data: new BigInt64Array([7n]) },
      mask: { dtype: 'bool', shape: [2], data: new Uint8Array([1, 0]) },
      bf: { dtype: 'bfloat16', shape: [1], data: new Uint16Array([0x3fc0]) },
    };
    const out = join(dir, 'interop');
    await writeTfjsArtifact(out, tensors, {}, { shardSizeBytes: 7 });
    const modelJson = JSON.parse(await readFile(join(out, 'model.json'), 'utf8'));
    const group = modelJson.weightsManifest[0];
    const buffers = await Promise.all(group.paths.map(async (p: string) => {
      const b = await readFile(join(out, p));
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    }));
    const decoded = tf.io.decodeWeights(tf.io.concatenateArrayBuffers(buffers), group.weights);
    expect(decoded.w.dtype).toBe('float32');
    expect([...decoded.w.dataSync()]).toEqual([1, 2, 3, 4, 5, 6.5]);
    expect(decoded.w.shape).toEqual([2, 3]);
    expect([...decoded.h.dataSync()]).toEqual([...toFloat32(tensors.h)]);
    expect(decoded.steps.dtype).toBe('int32');
    expect(decoded.steps.shape).toEqual([]);
    expect([...decoded.steps.dataSync()]).toEqual([7]);
    expect(decoded.mask.dtype).toBe('bool');
    expect([...decoded.mask.dataSync()]).toEqual([1, 0]);
    expect([...decoded.bf.dataSync()]).toEqual([1.5]);
    Object.values(decoded).forEach((t) => t.dispose());

    const back = await readTfjsArtifact(out);
    expect(back.tensors.get('h')!.dtype).toBe('float16');
    expect([...back.tensors.get('h')!.data]).toEqual([0x3c00, 0xc100, 0x3555]);
  });

  it('replaces an existing artifact atomically and leaves no temp directories', async () => {
    const out = join(dir, 'replace');
    const one = { x: { dtype: 'float32', shape: [1], data: new Float32Array([1]) } } satisfies Record<string, TensorData>;
    const two = { y: { dtype: 'float32', shape: [2], data: new Float32Array([2, 3]) } } satisfies Record<string, TensorData>;
    await writeTfjsArtifact(out, one);
    await writeTfjsArtifact(out, two);
    expect([...(await readTfjsArtifact(out)).tensors.keys()]).toEqual(['y']);
    await expect(
      writeTfjsArtifact(out, { z: { dtype: 'int64', shape: [1], data: new BigInt64Array([2n ** 40n]) } }),
    ).rejects.toThrow(/tensor "z": int64 value 1099511627776 does not fit tfjs int32/);
    expect([...(await readTfjsArtifact(out)).tensors.keys()]).toEqual(['y']);
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it("writes the folder's other files with it (files), and refuses names that would clash", async () => {
    const out = join(dir, 'with-files');
    const x = { x: { dtype: 'float32', shape: [1], data: new Float32Array([1]) } } satisfies Record<string, TensorData>;
    await writeTfjsArtifact(out, x, {}, { files: { 'config.json': '{"a":1}\n', 'tokenizer.json': new Uint8Array([123, 125]) } });
    expect((await readdir(out)).sort()).toEqual(['config.json', 'group1-shard1of1.bin', 'model.json', 'tokenizer.json']);
    expect(await readFile(join(out, 'config.json'), 'utf8')).toBe('{"a":1}\n');
    expect(await readFile(join(out, 'tokenizer.json'), 'utf8')).toBe('{}');
    for (const name of ['model.json', 'group1-shard1of1.bin', 'sub/config.json']) {
      await expect(writeTfjsArtifact(join(dir, 'clash'), x, {}, { files: { [name]: 'x' } })).rejects.toThrow(/is not a free file name/);
    }
    expect((await readdir(dir)).filter((f) => f === 'clash' || f.startsWith('.'))).toEqual([]); // nothing left of them
  });

  it('names missing shards and size mismatches', async () => {
    const out = join(dir, 'broken');
    await writeTfjsArtifact(out, { x: { dtype: 'float32', shape: [4], data: new Float32Array(4) } }, {}, { shardSizeBytes: 8 });
    await rm(join(out, 'group1-shard2of2.bin'));
    await expect(readTfjsArtifact(out)).rejects.toThrow(/shard .*group1-shard2of2\.bin is missing/);
    await writeFile(join(out, 'group1-shard2of2.bin'), Buffer.alloc(12));
    await expect(readTfjsArtifact(out)).rejects.toThrow(/shards hold 20 bytes but the manifest describes 16/);
  });
});
