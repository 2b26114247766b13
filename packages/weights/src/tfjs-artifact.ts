// tfjs weights artifacts: model.json (tfjs `weightsManifest` format) + binary
// shards, so converted weights load with one JSON parse and a few positioned
// reads — and stay readable by tfjs itself (`tf.io.decodeWeights`,
// `tf.io.fileSystem`/`browserFiles` weight loading).
//
// Layout, as tfjs-converter writes it: all weights concatenated in manifest
// order, the byte stream cut into fixed-size shards (a tensor may straddle a
// shard boundary). tfjs dtypes are float32, int32 and bool; float16 is stored
// as tfjs float16 quantization (dtype float32 + quantization {dtype:'float16'}),
// which tfjs widens on load and we return as float16 bits. Other dtypes are
// converted on write: bfloat16 → float32 (exact), float64 → float32 (rounded),
// int64/uint32/int16/int8/uint16/uint8 → int32 (range-checked).
import { mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { makeDirectory, syncDirectory, tempPathFor } from '@virnucpro/atomic-file';
import { readExactly, writeAll } from './file-io.js';
import { assertTensorConsistent, elementCount, tensorBytes, typedArrayFor, type DType, type TensorData } from './tensor-data.js';
import { toFloat32 } from './to-float32.js';
import { tensorEntries, type TensorCollection } from './safetensors-write.js';

/** 64 MiB: see README (tfjs-converter's 4 MB gives ~2,800 files for ESM-2 3B). */
export const DEFAULT_SHARD_BYTES = 64 * 1024 * 1024;

export interface TfjsWeightEntry {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32' | 'bool';
  quantization?: { dtype: 'float16' };
}

export interface TfjsModelJson {
  format: string;
  generatedBy: string;
  convertedBy: string | null;
  modelTopology: null;
  weightsManifest: { paths: string[]; weights: TfjsWeightEntry[] }[];
  userDefinedMetadata?: Record<string, unknown>;
}

export interface WriteTfjsOptions {
  shardSizeBytes?: number;
  /**
   * Other files of the model's folder (e.g. config.json, tokenizer.json), by name: written and fsynced beside
   * model.json, so the whole folder appears at once or not at all.
   */
  files?: Record<string, string | Uint8Array>;
}

export interface TfjsArtifact {
  tensors: Map<string, TensorData>;
  metadata: Record<string, unknown>;
  modelJson: TfjsModelJson;
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** What a tensor becomes in the artifact: manifest entry + little-endian bytes. */
function encodeForTfjs(name: string, t: TensorData): { entry: TfjsWeightEntry; bytes: Uint8Array } {
  assertTensorConsistent(name, t);
  const shape = [...t.shape];
  switch (t.dtype) {
    case 'float32':
      return { entry: { name, shape, dtype: 'float32' }, bytes: tensorBytes(t) };
    case 'float16':
      return { entry: { name, shape, dtype: 'float32', quantization: { dtype: 'float16' } }, bytes: tensorBytes(t) };
    case 'bfloat16':
    case 'float64': {
      const f = toFloat32(t);
      return { entry: { name, shape, dtype: 'float32' }, bytes: new Uint8Array(f.buffer, f.byteOffset, f.byteLength) };
    }
    case 'bool':
      return { entry: { name, shape, dtype: 'bool' }, bytes: tensorBytes(t) };
    case 'int32':
      return { entry: { name, shape, dtype: 'int32' }, bytes: tensorBytes(t) };
    default: {
      const out = new Int32Array(t.data.length);
      for (let i = 0; i < out.length; i++) {
        const v = Number(t.data[i]);
        if (v < INT32_MIN || v > INT32_MAX) throw new Error(`tensor "${name}": ${t.dtype} value ${String(t.data[i])} does not fit tfjs int32`);
        out[i] = v;
      }
      return { entry: { name, shape, dtype: 'int32' }, bytes: new Uint8Array(out.buffer) };
    }
  }
}

/**
 * Writes `dir/model.json` + `dir/group1-shardNofM.bin`. Atomic: everything is
 * written and fsynced in a temp directory beside `dir`, which then replaces `dir`.
 */
export async function writeTfjsArtifact(
  dir: string,
  tensors: TensorCollection,
  userMetadata: Record<string, unknown> = {},
  options: WriteTfjsOptions = {},
): Promise<void> {
  const shardSize = options.shardSizeBytes ?? DEFAULT_SHARD_BYTES;
  if (!Number.isSafeInteger(shardSize) || shardSize <= 0) throw new Error(`shardSizeBytes must be a positive integer, got ${shardSize}`);
  const encoded = tensorEntries(tensors).map(([name, t]) => encodeForTfjs(name, t));
  const seen = new Set<string>();
  for (const { entry } of encoded) {
    if (seen.has(entry.name)) throw new Error(`tensor "${entry.name}" appears twice`);
    seen.add(entry.name);
  }
  const totalBytes = encoded.reduce((n, e) => n + e.bytes.length, 0);
  const shardCount = Math.max(1, Math.ceil(totalBytes / shardSize));
  const paths = Array.from({ length: shardCount }, (_, i) => `group1-shard${i + 1}of${shardCount}.bin`);

  await makeDirectory(dirname(dir));
  // A folder written under the one temporary-name scheme of atomic files, then swapped into place.
  const temp = tempPathFor(dir);
  await mkdir(temp);
  try {
    // Stream the concatenated weight bytes into consecutive shard files.
    let shard = 0;
    let written = 0;
    let fh = await open(join(temp, paths[0]), 'w');
    try {
      for (const { bytes } of encoded) {
        let at = 0;
        while (at < bytes.length) {
          if (written === shardSize) {
            await fh.sync();
            await fh.close();
            fh = await open(join(temp, paths[++shard]), 'w');
            written = 0;
          }
          const n = Math.min(bytes.length - at, shardSize - written);
          await writeAll(fh, bytes.subarray(at, at + n));
          at += n;
          written += n;
        }
      }
      await fh.sync();
    } finally {
      await fh.close();
    }
    const modelJson: TfjsModelJson = {
      format: 'virnucpro-weights',
      generatedBy: '@virnucpro/weights',
      convertedBy: null,
      modelTopology: null,
      weightsManifest: [{ paths, weights: encoded.map((e) => e.entry) }],
      userDefinedMetadata: userMetadata,
    };
    const json = await open(join(temp, 'model.json'), 'w');
    try {
      await writeAll(json, new TextEncoder().encode(JSON.stringify(modelJson)));
      await json.sync();
    } finally {
      await json.close();
    }
    for (const [name, content] of Object.entries(options.files ?? {})) {
      if (name.includes('/') || name === 'model.json' || paths.includes(name)) throw new Error(`files: '${name}' is not a free file name in the artifact folder`);
      const file = await open(join(temp, name), 'w');
      try {
        await writeAll(file, typeof content === 'string' ? new TextEncoder().encode(content) : content);
        await file.sync();
      } finally {
        await file.close();
      }
    }
    await syncDirectory(temp);
    await replaceDirectory(temp, dir);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}

async function replaceDirectory(source: string, target: string): Promise<void> {
  const existing = await stat(target).catch(() => undefined);
  if (!existing) {
    await rename(source, target);
  } else {
    if (!existing.isDirectory()) throw new Error(`${target} exists and is not a directory`);
    const old = tempPathFor(target);
    await rename(target, old);
    await rename(source, target);
    await rm(old, { recursive: true, force: true });
  }
  await syncDirectory(dirname(target));
}

const TFJS_BYTES: Record<string, number> = { float32: 4, int32: 4, bool: 1 };

/** Reads an artifact written by writeTfjsArtifact (or by tfjs-converter, weights only; quantization: float16). */
export async function readTfjsArtifact(dir: string): Promise<TfjsArtifact> {
  const jsonPath = join(dir, 'model.json');
  let modelJson: TfjsModelJson;
  try {
    modelJson = JSON.parse(await readFile(jsonPath, 'utf8')) as TfjsModelJson;
  } catch (error) {
    throw new Error(`${jsonPath}: not a readable tfjs model.json (${(error as Error).message})`);
  }
  if (!Array.isArray(modelJson.weightsManifest)) throw new Error(`${jsonPath}: no "weightsManifest" array`);
  const tensors = new Map<string, TensorData>();
  for (const group of modelJson.weightsManifest) {
    const shardPaths = group.paths.map((p) => {
      if (p.includes('/') || p.includes('\\')) throw new Error(`${jsonPath}: shard path "${p}" must be a file name beside model.json`);
      return join(dir, p);
    });
    const shards = await Promise.all(shardPaths.map(async (path) => ({ path, size: (await stat(path).catch(() => {
      throw new Error(`${jsonPath}: shard ${path} is missing`);
    })).size })));
    const handles = await Promise.all(shards.map((s) => open(s.path, 'r')));
    try {
      let offset = 0; // position in the concatenated byte stream of this group
      for (const w of group.weights) {
        const { dtype, bytesPer } = storedType(w, jsonPath);
        const count = elementCount(w.shape);
        const length = count * bytesPer;
        const buffer = new ArrayBuffer(length);
        await readSpan(shards, handles, offset, new Uint8Array(buffer), `${jsonPath}: weight "${w.name}"`);
        offset += length;
        tensors.set(w.name, { dtype, shape: [...w.shape], data: typedArrayFor(dtype, buffer, 0, count) });
      }
      const total = shards.reduce((n, s) => n + s.size, 0);
      if (offset !== total) throw new Error(`${jsonPath}: shards hold ${total} bytes but the manifest describes ${offset}`);
    } finally {
      await Promise.all(handles.map((h) => h.close()));
    }
  }
  const metadata = (modelJson.userDefinedMetadata ?? {}) as Record<string, unknown>;
  return { tensors, metadata, modelJson };
}

function storedType(w: TfjsWeightEntry, where: string): { dtype: DType; bytesPer: number } {
  if (!Array.isArray(w.shape) || !w.shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
    throw new Error(`${where}: weight "${w.name}" has an invalid shape ${JSON.stringify(w.shape)}`);
  }
  if (w.quantization) {
    if (w.quantization.dtype === 'float16' && w.dtype === 'float32') return { dtype: 'float16', bytesPer: 2 };
    throw new Error(`${where}: weight "${w.name}" uses ${JSON.stringify(w.quantization)} quantization; only float16 is supported`);
  }
  const bytesPer = TFJS_BYTES[w.dtype];
  if (!bytesPer) throw new Error(`${where}: weight "${w.name}" has unsupported dtype "${w.dtype}"`);
  return { dtype: w.dtype === 'bool' ? 'bool' : w.dtype, bytesPer };
}

/** Reads bytes [offset, offset + target.length) of the shards' concatenation. */
async function readSpan(
  shards: { path: string; size: number }[],
  handles: Awaited<ReturnType<typeof open>>[],
  offset: number,
  target: Uint8Array,
  what: string,
): Promise<void> {
  let filled = 0;
  let shardStart = 0;
  for (let i = 0; i < shards.length && filled < target.length; i++) {
    const shardEnd = shardStart + shards[i].size;
    const position = offset + filled;
    if (position < shardEnd) {
      const n = Math.min(target.length - filled, shardEnd - position);
      await readExactly(handles[i], target.subarray(filled, filled + n), position - shardStart, what);
      filled += n;
    }
    shardStart = shardEnd;
  }
  if (filled < target.length) throw new Error(`${what}: the shards end before its last ${target.length - filled} bytes`);
}
