import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DeviceSelectionError } from '@virnucpro/runtime';

/** The CUDA runtime's device-selection variables (NVIDIA's names): which GPUs a process sees, and in what order. */
export const cudaVisibleDevicesEnvVar = 'CUDA_VISIBLE_DEVICES';
export const cudaDeviceOrderEnvVar = 'CUDA_DEVICE_ORDER';
/** nvidia-smi's numbering: the order every worker is pinned in unless the user chose another. */
const pciBusOrder = 'PCI_BUS_ID';

/** The environment that shows a process the GPU `device` (an index or a UUID) alone, numbered in `order`. */
export function cudaDeviceEnv(device: string, order = pciBusOrder): Record<string, string> {
  return { [cudaVisibleDevicesEnvVar]: device, [cudaDeviceOrderEnvVar]: order };
}

export interface CudaDevice {
  /** Index as nvidia-smi reports it (PCI bus order). */
  index: number;
  uuid: string;
  name: string;
}

/**
 * Lists the NVIDIA GPUs with `nvidia-smi` (PCI bus order). If the parent already has
 * CUDA_VISIBLE_DEVICES, only those devices are offered (entries may be indices or UUIDs).
 */
export async function listCudaDevices(env: NodeJS.ProcessEnv = process.env): Promise<CudaDevice[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('nvidia-smi', ['--query-gpu=index,uuid,name', '--format=csv,noheader'], {
      timeout: 30_000,
    }));
  } catch (error) {
    throw new Error(`cannot list CUDA devices: nvidia-smi failed (${(error as Error).message.split('\n')[0]})`);
  }
  const all = parseNvidiaSmi(stdout);
  return filterVisible(all, env[cudaVisibleDevicesEnvVar]);
}

export function parseNvidiaSmi(csv: string): CudaDevice[] {
  return csv
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [index, uuid, ...name] = line.split(',').map((field) => field.trim());
      return { index: Number(index), uuid, name: name.join(',') };
    });
}

export function filterVisible(devices: CudaDevice[], visible: string | undefined): CudaDevice[] {
  if (visible === undefined) return devices;
  const wanted = visible.split(',').map((entry) => entry.trim()).filter(Boolean);
  return wanted.flatMap((entry) => devices.filter((d) => String(d.index) === entry || d.uuid === entry || d.uuid.startsWith(entry)));
}

/**
 * The environment of a `cuda` worker pinned to driver ordinal `ordinal` of this (parent) process: that GPU
 * alone in CUDA_VISIBLE_DEVICES, so the worker's backend sees it as its device 0. A parent that already has
 * CUDA_VISIBLE_DEVICES numbers only those GPUs, so the worker gets that list's entry (an index or a UUID);
 * the device order is the parent's (PCI bus order unless it says otherwise).
 */
export function cudaWorkerEnv(ordinal: number, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const visible = env[cudaVisibleDevicesEnvVar]?.split(',').map((entry) => entry.trim());
  const entry = visible ? visible[ordinal] : String(ordinal);
  if (entry === undefined || entry === '') {
    throw new DeviceSelectionError(`CUDA device ${ordinal} is not in ${cudaVisibleDevicesEnvVar}=${env[cudaVisibleDevicesEnvVar]}`);
  }
  return cudaDeviceEnv(entry, env[cudaDeviceOrderEnvVar] || pciBusOrder);
}
