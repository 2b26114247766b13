// The pre-1.6 torch.save format (`_use_new_zipfile_serialization=False`):
// five consecutive pickles — magic number, protocol version, sys info, the
// object, the list of storage keys — then, for each key in that order, an
// int64 element count followed by the storage's raw bytes. Small files only
// in practice, so the file is read whole.
import { readFile } from 'node:fs/promises';
import { unpickleAt } from '../pickle/unpickler.js';
import { bytesPerElement } from '../tensor-data.js';
import { fillTensors } from './fill-tensors.js';
import type { DictMode } from '../pickle/python-objects.js';
import { TorchGlobals } from './torch-globals.js';
import type { StorageRef } from './storage-types.js';

const MAGIC_NUMBER = 0x1950a86a20f9469cfc6cn;
const PROTOCOL_VERSION = 1001;

export async function readLegacyTorchFile(path: string, options: { dicts?: DictMode } = {}): Promise<unknown> {
  const bytes = new Uint8Array(await readFile(path));
  const plain = { source: path, dicts: options.dicts };
  const magic = unpickleAt(bytes, 0, plain);
  if (BigInt(magic.value as number | bigint) !== MAGIC_NUMBER) {
    throw new Error(`${path}: a pickle, but not a torch checkpoint (no torch magic number); plain pickles are not loaded`);
  }
  const protocol = unpickleAt(bytes, magic.end, plain);
  if (protocol.value !== PROTOCOL_VERSION) throw new Error(`${path}: unsupported legacy torch protocol ${String(protocol.value)}`);
  const sysInfo = unpickleAt(bytes, protocol.end, plain);
  const info = sysInfo.value as { little_endian?: boolean } | null;
  const globals = new TorchGlobals(path);
  const main = unpickleAt(bytes, sysInfo.end, {
    source: path,
    dicts: options.dicts,
    resolveGlobal: globals.resolve,
    persistentLoad: globals.persistentLoad,
  });
  const keys = unpickleAt(bytes, main.end, plain);
  if (!Array.isArray(keys.value)) throw new Error(`${path}: legacy storage key list missing`);

  // Walk the storage records in key order to find where each one's bytes start.
  const dtypeOf = new Map<string, StorageRef>();
  for (const p of globals.pending) dtypeOf.set(p.storage.key, p.storage);
  const located = new Map<string, Uint8Array>();
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let position = keys.end;
  for (const key of keys.value as unknown[]) {
    const ref = dtypeOf.get(String(key));
    if (position + 8 > bytes.length) throw new Error(`${path}: file ends before storage ${String(key)}`);
    const numel = Number(view.getBigInt64(position, info?.little_endian === false ? false : true));
    position += 8;
    if (!ref) throw new Error(`${path}: storage ${String(key)} is listed but no tensor uses it, so its element size is unknown`);
    const length = numel * bytesPerElement(ref.dtype);
    if (position + length > bytes.length) throw new Error(`${path}: storage ${String(key)} is truncated`);
    located.set(String(key), bytes.slice(position, position + length));
    position += length;
  }
  await fillTensors(globals.pending, info?.little_endian === false ? 'big' : 'little', async (storage) => {
    const data = located.get(storage.key);
    if (!data) throw new Error(`${path}: storage ${storage.key} is not in the file`);
    if (data.length < storage.rootNumel * bytesPerElement(storage.dtype)) throw new Error(`${path}: storage ${storage.key} is shorter than declared`);
    return data;
  });
  return main.value;
}
