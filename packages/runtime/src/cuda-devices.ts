import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

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
  return filterVisible(all, env.CUDA_VISIBLE_DEVICES);
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
