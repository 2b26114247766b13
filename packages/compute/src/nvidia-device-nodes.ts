import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** One NVIDIA GPU as the kernel driver lists it. */
export interface NvidiaDeviceNode {
  /** Position in PCI bus order: the number nvidia-smi (and CUDA with PCI_BUS_ID order) gives this GPU. */
  index: number;
  busId: string;
  model: string;
  /** The character device a process opens to use this GPU, `/dev/nvidia<minor>`. */
  path: string;
}

/**
 * Lists NVIDIA GPUs from /proc/driver/nvidia/gpus/<bus>/information (no nvidia-smi needed), in PCI bus
 * order. Returns [] where the driver is not loaded.
 */
export async function listNvidiaDeviceNodes(procDir = '/proc/driver/nvidia/gpus'): Promise<NvidiaDeviceNode[]> {
  let buses: string[];
  try {
    buses = await readdir(procDir);
  } catch {
    return [];
  }
  const found = await Promise.all(
    buses.map(async (bus) => parseNvidiaGpuInformation(await readFile(join(procDir, bus, 'information'), 'utf8'), bus)),
  );
  return found
    .sort((a, b) => a.busId.localeCompare(b.busId))
    .map((gpu, index) => ({ index, busId: gpu.busId, model: gpu.model, path: `/dev/nvidia${gpu.minor}` }));
}

/** Parses one `information` file ("Model: …", "Bus Location: …", "Device Minor: N"). */
export function parseNvidiaGpuInformation(text: string, bus: string): { busId: string; model: string; minor: number } {
  const field = (name: string) => new RegExp(`^${name}:\\s*(.*)$`, 'm').exec(text)?.[1]?.trim();
  const minor = Number(field('Device Minor'));
  if (!Number.isInteger(minor) || minor < 0) throw new Error(`/proc/driver/nvidia/gpus/${bus}/information: no "Device Minor" line`);
  return { busId: (field('Bus Location') ?? bus).toLowerCase(), model: field('Model') ?? 'NVIDIA GPU', minor };
}
