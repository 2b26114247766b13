// One entry point for "give me the named weights" over every format users have.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PyObject, isPlainDict } from './pickle/python-objects.js';
import { readSafetensors } from './safetensors-read.js';
import type { TensorData } from './tensor-data.js';
import { readTorchCheckpoint } from './torch/read-torch-checkpoint.js';
import { readShardedTorch } from './torch/sharded-torch.js';

const TORCH_EXTENSIONS = /\.(bin|pt|pth|ckpt|pkl)$/i;

/**
 * Loads named tensors from:
 * - a directory: `model.safetensors`, `model.safetensors.index.json`, `pytorch_model.bin`
 *   or `pytorch_model.bin.index.json` (first found, in that order);
 * - a `.safetensors` file or a `*.safetensors.index.json`;
 * - a torch checkpoint (`.bin/.pt/.pth/.ckpt`): a state dict, a dict holding one under
 *   `model` (fair-esm), `state_dict`, `model_state_dict` or `module`, or a whole pickled
 *   nn.Module (named as `module.state_dict()` would name them).
 */
export async function loadStateDict(pathOrDir: string): Promise<Map<string, TensorData>> {
  const info = await stat(pathOrDir).catch(() => {
    throw new Error(`${pathOrDir}: no such file or directory`);
  });
  if (info.isDirectory()) return loadStateDict(await pickWeightsFile(pathOrDir));
  if (pathOrDir.endsWith('.safetensors') || pathOrDir.endsWith('.safetensors.index.json')) {
    return (await readSafetensors(pathOrDir)).tensors;
  }
  if (pathOrDir.endsWith('.bin.index.json')) return readShardedTorch(pathOrDir, stateDictOf);
  if (TORCH_EXTENSIONS.test(pathOrDir)) return stateDictOf(await readTorchCheckpoint(pathOrDir), pathOrDir);
  throw new Error(
    `${pathOrDir}: unknown weights format (expected a directory, .safetensors, .safetensors.index.json, .bin, .pt, .pth or .ckpt)`,
  );
}

async function pickWeightsFile(dir: string): Promise<string> {
  const names = new Set(await readdir(dir));
  for (const candidate of ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin', 'pytorch_model.bin.index.json']) {
    if (names.has(candidate)) return join(dir, candidate);
  }
  throw new Error(
    `${dir}: no weights found (expected model.safetensors, model.safetensors.index.json, pytorch_model.bin or pytorch_model.bin.index.json)`,
  );
}

export function isTensorData(value: unknown): value is TensorData {
  if (value === null || typeof value !== 'object') return false;
  const t = value as Partial<TensorData>;
  return typeof t.dtype === 'string' && Array.isArray(t.shape) && ArrayBuffer.isView(t.data);
}

/** Whether an unpickled object is a torch.nn.Module (any class whose state has `_parameters` and `_modules`). */
export function isTorchModule(value: unknown): value is PyObject {
  return value instanceof PyObject && isPlainDict(value.dict._parameters) && isPlainDict(value.dict._modules);
}

/** The flattened state dict of an unpickled checkpoint (see loadStateDict for the shapes recognised). */
export function stateDictOf(root: unknown, source = 'checkpoint'): Map<string, TensorData> {
  if (isTorchModule(root)) return moduleStateDict(root);
  const dict = asDict(root);
  if (dict) {
    if (Object.values(dict).length > 0 && Object.values(dict).every(isTensorData)) return new Map(Object.entries(dict) as [string, TensorData][]);
    for (const key of ['model', 'state_dict', 'model_state_dict', 'module']) {
      const inner = dict[key];
      if (isTorchModule(inner)) return moduleStateDict(inner);
      const innerDict = asDict(inner);
      if (innerDict && Object.values(innerDict).some(isTensorData)) return collectTensors(innerDict);
    }
    const all = collectTensors(dict);
    if (all.size > 0) return all;
  }
  throw new Error(`${source}: found no tensors (not a state dict, a dict holding one, or an nn.Module)`);
}

/** Same names and order as `module.state_dict()`: own parameters, persistent buffers, then children. */
export function moduleStateDict(module: PyObject, prefix = '', out = new Map<string, TensorData>()): Map<string, TensorData> {
  const state = module.dict;
  const parameters = asDict(state._parameters) ?? {};
  const buffers = asDict(state._buffers) ?? {};
  const nonPersistent = state._non_persistent_buffers_set instanceof Set ? state._non_persistent_buffers_set : new Set();
  for (const [name, value] of Object.entries(parameters)) if (isTensorData(value)) out.set(prefix + name, value);
  for (const [name, value] of Object.entries(buffers)) {
    if (isTensorData(value) && !nonPersistent.has(name)) out.set(prefix + name, value);
  }
  for (const [name, child] of Object.entries(asDict(state._modules) ?? {})) {
    if (isTorchModule(child)) moduleStateDict(child, `${prefix}${name}.`, out);
  }
  return out;
}

/** Every tensor under a dict tree, named by the dotted path of keys. */
function collectTensors(dict: Record<string, unknown>, prefix = '', out = new Map<string, TensorData>()): Map<string, TensorData> {
  for (const [key, value] of Object.entries(dict)) {
    const name = prefix + key;
    if (isTensorData(value)) out.set(name, value);
    else if (isTorchModule(value)) moduleStateDict(value, `${name}.`, out);
    else {
      const inner = asDict(value);
      if (inner) collectTensors(inner, `${name}.`, out);
    }
  }
  return out;
}

function asDict(value: unknown): Record<string, unknown> | undefined {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), v]));
  return isPlainDict(value) && !isTensorData(value) ? value : undefined;
}
