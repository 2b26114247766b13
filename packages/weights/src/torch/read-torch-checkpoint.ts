// torch.load without torch and without executing the pickle.
import { open } from 'node:fs/promises';
import { readExactly } from '../file-io.js';
import { unpickle } from '../pickle/unpickler.js';
import type { DictMode } from '../pickle/python-objects.js';
import { bytesPerElement } from '../tensor-data.js';
import { fillTensors } from './fill-tensors.js';
import { readLegacyTorchFile } from './legacy-format.js';
import { TorchArchive } from './torch-archive.js';
import { TorchGlobals } from './torch-globals.js';

export interface ReadTorchOptions {
  /** Python dicts as plain objects (default) or Maps. */
  dicts?: DictMode;
}

/**
 * Reads a checkpoint written by `torch.save` (zip format, torch ≥ 1.6; the
 * older non-zip format too) and returns the unpickled object tree: tensors as
 * TensorData, dicts as plain objects, modules and other class instances as
 * inert PyObject records. Nothing in the file is executed.
 */
export async function readTorchCheckpoint(path: string, options: ReadTorchOptions = {}): Promise<unknown> {
  const kind = await sniff(path);
  if (kind === 'legacy') return readLegacyTorchFile(path, options);
  if (kind !== 'zip') {
    throw new Error(`${path}: not a PyTorch checkpoint (expected a zip archive written by torch.save, or the legacy pickle format)`);
  }
  const archive = await TorchArchive.open(path);
  try {
    const source = `${path}: ${archive.prefix}/data.pkl`;
    const globals = new TorchGlobals(source);
    const root = unpickle(await archive.read('data.pkl'), {
      source,
      resolveGlobal: globals.resolve,
      persistentLoad: globals.persistentLoad,
      dicts: options.dicts,
    });
    const byteOrder = ((await archive.readText('byteorder')) ?? 'little').trim();
    if (byteOrder !== 'little' && byteOrder !== 'big') throw new Error(`${path}: unknown byteorder record "${byteOrder}"`);
    await fillTensors(globals.pending, byteOrder, async (storage) => {
      const name = `data/${storage.key}`;
      const needed = storage.rootNumel * bytesPerElement(storage.dtype);
      if (archive.sizeOf(name) < needed) {
        throw new Error(`${path}: storage ${storage.key} holds ${archive.sizeOf(name)} bytes, but ${storage.rootNumel} ${storage.dtype} need ${needed}`);
      }
      return archive.read(name);
    });
    return root;
  } finally {
    await archive.close();
  }
}

async function sniff(path: string): Promise<'zip' | 'legacy' | 'unknown'> {
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    if (size < 4) return 'unknown';
    const head = new Uint8Array(4);
    await readExactly(fh, head, 0, path);
    if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return 'zip';
    if (head[0] === 0x80 && head[1] >= 2 && head[1] <= 5) return 'legacy';
    return 'unknown';
  } finally {
    await fh.close();
  }
}
