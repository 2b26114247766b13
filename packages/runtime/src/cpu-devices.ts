import { cpus } from 'node:os';
import { DeviceSelectionError } from './errors.js';
import type { DeviceInfo } from './plugin.js';

/** `count` CPU worker processes (`cpu:0`, `cpu:1`, …), started with no device variables. */
export function cpuWorkerDevices(count: number): DeviceInfo[] {
  if (!Number.isInteger(count) || count < 1) throw new DeviceSelectionError(`workers must be a positive integer, got ${count}`);
  if (count > cpus().length * 4) throw new DeviceSelectionError(`${count} CPU workers for ${cpus().length} cores is not sensible`);
  return Array.from({ length: count }, (_, id) => ({ label: `cpu:${id}`, kind: 'cpu' as const, id, env: {} }));
}
