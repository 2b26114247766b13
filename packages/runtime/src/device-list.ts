import { DeviceSelectionError } from './errors.js';

/** Parses `--devices 0,2` (also accepts "cuda:1" / "webgpu:1" forms). */
export function parseDeviceList(text: string): number[] {
  return text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const id = Number(part.replace(/^[a-z]+:/i, ''));
      if (!Number.isInteger(id) || id < 0) throw new DeviceSelectionError(`--devices expects comma-separated device numbers like 0,2; got '${part}'`);
      return id;
    });
}
