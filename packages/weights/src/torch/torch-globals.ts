// The torch functions a checkpoint pickle calls to rebuild tensors, each
// re-implemented as bookkeeping: the tensor is created with its shape and a
// pending (storage, offset, stride) record; its bytes are filled in after the
// pickle is parsed, straight from the archive.
import { PyCallable, PyGlobal } from '../pickle/python-objects.js';
import { elementCount, type TensorData } from '../tensor-data.js';
import { StorageRef, TORCH_STORAGE_DTYPES, TorchStorageType } from './storage-types.js';

export interface PendingTensor {
  tensor: TensorData;
  storage: StorageRef;
  offset: number;
  stride: number[];
}

/** Resolves torch globals for `unpickle` and records every tensor it builds. */
export class TorchGlobals {
  readonly pending: PendingTensor[] = [];
  private readonly callables = new Map<string, PyCallable>();

  constructor(private readonly source: string) {
    const add = (name: string, call: PyCallable['call']) => this.callables.set(name, new PyCallable(name, call));
    add('torch._utils._rebuild_tensor_v2', (args) => this.rebuildTensor(args));
    add('torch._utils._rebuild_tensor', (args) => this.rebuildTensor(args));
    add('torch._utils._rebuild_tensor_v3', (args) => this.rebuildTensor(args));
    // nn.Parameter(tensor, requires_grad, hooks[, state]) → the tensor itself.
    add('torch._utils._rebuild_parameter', (args) => this.expectTensor(args[0], '_rebuild_parameter'));
    add('torch._utils._rebuild_parameter_with_state', (args) => this.expectTensor(args[0], '_rebuild_parameter_with_state'));
    // Tensor subclasses: _rebuild_from_type_v2(func, new_type, args, state) → func(*args), type dropped.
    add('torch._tensor._rebuild_from_type_v2', (args) => {
      const [func, , innerArgs] = args;
      if (func instanceof PyCallable && Array.isArray(innerArgs)) return func.call(innerArgs);
      throw new Error(`${this.source}: _rebuild_from_type_v2 with an unsupported rebuild function ${String(func)}`);
    });
  }

  readonly resolve = (module: string, name: string): unknown => {
    const callable = this.callables.get(`${module}.${name}`);
    if (callable) return callable;
    if (module === 'torch' && name.endsWith('Storage')) return new TorchStorageType(name, TORCH_STORAGE_DTYPES[name]);
    if (module === 'torch.storage' && name === 'UntypedStorage') return new TorchStorageType(name, 'uint8');
    return undefined;
  };

  /**
   * persistent_load: ('storage', storage_type, key, location, numel) in zip
   * checkpoints; legacy files add view_metadata (view_key, offset, view_size)
   * and use ('module', class, source_file, source) for pickled module classes.
   */
  readonly persistentLoad = (pid: unknown): unknown => {
    if (Array.isArray(pid) && pid[0] === 'module' && pid.length >= 2) return pid[1];
    if (!Array.isArray(pid) || pid[0] !== 'storage' || pid.length < 5) {
      throw new Error(`${this.source}: unsupported persistent id ${safeJson(pid)} (expected ('storage', type, key, location, numel))`);
    }
    const [, type, key, location, numel, view] = pid;
    if (!(type instanceof TorchStorageType)) {
      throw new Error(`${this.source}: persistent id names ${String(type)}, not a torch storage class`);
    }
    if (!type.dtype) throw new Error(`${this.source}: storage type torch.${type.name} is not supported`);
    if (typeof numel !== 'number' || !Number.isSafeInteger(numel) || numel < 0) {
      throw new Error(`${this.source}: storage ${String(key)} has an invalid element count ${String(numel)}`);
    }
    if (Array.isArray(view)) {
      const [, viewOffset, viewSize] = view;
      if (!isIntArray([viewOffset, viewSize]) || viewOffset < 0 || viewOffset + viewSize > numel) {
        throw new Error(`${this.source}: storage view ${safeJson(view)} lies outside storage ${String(key)} (${numel} elements)`);
      }
      return new StorageRef(String(key), type.dtype, viewSize, String(location), numel, viewOffset);
    }
    return new StorageRef(String(key), type.dtype, numel, String(location));
  };

  private expectTensor(value: unknown, where: string): TensorData {
    if (!this.pending.some((p) => p.tensor === value)) {
      throw new Error(`${this.source}: ${where} expects a tensor`);
    }
    return value as TensorData;
  }

  /** _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]). */
  private rebuildTensor(args: unknown[]): TensorData {
    const [storage, offset, size, stride] = args;
    if (!(storage instanceof StorageRef)) throw new Error(`${this.source}: tensor rebuilt from ${describeValue(storage)}, not a storage`);
    if (!isIntArray(size) || !isIntArray(stride) || size.length !== stride.length || typeof offset !== 'number') {
      throw new Error(`${this.source}: tensor on storage ${storage.key} has a malformed size/stride/offset`);
    }
    const shape = size as number[];
    const strides = stride as number[];
    const n = elementCount(shape);
    if (n > 0) {
      let last = offset;
      for (let d = 0; d < shape.length; d++) last += (shape[d] - 1) * strides[d];
      if (offset < 0 || last >= storage.numel || strides.some((s) => s < 0)) {
        throw new Error(
          `${this.source}: tensor [${shape}] stride [${strides}] offset ${offset} reaches outside storage ${storage.key} (${storage.numel} elements)`,
        );
      }
    }
    // data is a placeholder until the storage bytes are read (readTorchCheckpoint fills it).
    const tensor: TensorData = { dtype: storage.dtype, shape: [...shape], data: new Uint8Array(0) };
    this.pending.push({ tensor, storage, offset, stride: [...strides] });
    return tensor;
  }
}

function isIntArray(value: unknown): value is number[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'number' && Number.isSafeInteger(v));
}

function describeValue(value: unknown): string {
  if (value instanceof PyGlobal) return value.toString();
  return value === null ? 'None' : typeof value;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value, (_, v) => (typeof v === 'bigint' ? String(v) : v instanceof TorchStorageType ? `torch.${v.name}` : v));
  } catch {
    return String(value);
  }
}
