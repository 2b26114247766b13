import type { BackendName } from '@virnucpro/ops';
import { cpuWorkerDevices, DeviceSelectionError, isolationUnavailable, type DeviceInfo } from '@virnucpro/runtime';
import { backends } from './backends.js';
import { cudaDeviceEnv, cudaVisibleDevicesEnvVar, cudaWorkerEnv, listCudaDevices, type CudaDevice } from './cuda-devices.js';
import { listNvidiaDeviceNodes, type NvidiaDeviceNode } from './nvidia-device-nodes.js';
import { isSoftwareAdapter, listWebGpuAdapters, type WebGpuAdapter } from './webgpu-adapters.js';
import { cudaProbe, cudaProbeAsync } from './cuda-probe.js';
import type { CudaProbe } from '@virnucpro/tfjs-backend-cuda';
import { dawnFlagsToEnv } from './webgpu-setup.js';

/** A GPU as the CUDA driver numbers it (the `cuda` backend's view). */
export interface CudaDriverDevice {
  /** Driver ordinal: nvidia-smi's number, or the position in CUDA_VISIBLE_DEVICES when the parent has one. */
  ordinal: number;
  name: string;
}

/**
 * The GPUs of the cuda backend's probe (cuda-probe.ts: asked once per process, the answer `auto` read too). No
 * GPU, driver or libraries: a DeviceSelectionError with the probe's reason (what was looked for, and where).
 */
async function cudaDriverDevices(): Promise<CudaDriverDevice[]> {
  const probe = cudaProbe();
  if (!probe.ok) throw new DeviceSelectionError(`no CUDA device for --backend cuda: ${probe.reason}`);
  return probe.devices.map((d) => ({ ordinal: d.ordinal, name: d.name }));
}

export interface DeviceSelection {
  backend: BackendName;
  /** Device numbers to use (`--devices 0,2`); GPU backends only. Default: every device found. */
  devices?: number[];
  /** Worker processes: CPU backends = total count (default 1); GPU backends = per device (default 1). */
  workers?: number;
  /** Injected for tests and for callers that already know the hardware. */
  discover?: {
    /** GPUs for `tensorflow` (nvidia-smi). */
    cuda?: () => Promise<CudaDevice[]>;
    /** GPUs for `cuda` (the CUDA driver, through @virnucpro/tfjs-backend-cuda's probeCuda, asked once). */
    cudaDriver?: () => Promise<CudaDriverDevice[]>;
    /** The environment the pool's workers inherit (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER); default process.env. */
    env?: NodeJS.ProcessEnv;
    webgpu?: () => Promise<WebGpuAdapter[]>;
    nvidiaNodes?: () => Promise<NvidiaDeviceNode[]>;
    /** Why GPUs cannot be hidden from a worker here (undefined: they can). */
    isolationUnavailable?: () => string | undefined;
  };
}

/**
 * Resolves the device of every worker slot. GPU devices are exactly those requested: an
 * unknown number is an error naming the ones that exist — never a silent fallback to others.
 */
export async function resolveDevices(selection: DeviceSelection): Promise<DeviceInfo[]> {
  const { backend } = selection;
  const workers = selection.workers ?? 1;
  if (!Number.isInteger(workers) || workers < 1) throw new DeviceSelectionError(`workers must be a positive integer, got ${workers}`);

  if (backends[backend].runsOn === 'cpu') {
    if (selection.devices && selection.devices.length > 0) {
      throw new DeviceSelectionError(`--devices selects GPUs; backend '${backend}' runs on the CPU (use --workers)`);
    }
    return cpuWorkerDevices(workers);
  }

  if (backend === 'tensorflow') {
    const found = await (selection.discover?.cuda ?? listCudaDevices)();
    const chosen = pick(found.map((d) => d.index), selection.devices, 'CUDA', found.map((d) => `${d.index} (${d.name})`));
    return chosen.flatMap((index) => {
      const device = found.find((d) => d.index === index)!;
      // CUDA's default order is "fastest first", nvidia-smi's is PCI bus order: pin the order so
      // the number the user typed is the GPU nvidia-smi shows under that number.
      const env = cudaDeviceEnv(String(device.index));
      return replicate(workers, { label: `cuda:${index}`, kind: 'cuda' as const, id: index, name: device.name, env });
    });
  }

  if (backend === 'cuda') {
    // One worker per driver ordinal, each started with CUDA_VISIBLE_DEVICES naming that GPU alone, so its
    // backend sees exactly one device (ordinal 0). No mount namespace: CUDA honours the variable itself.
    const found = await (selection.discover?.cudaDriver ?? cudaDriverDevices)();
    const chosen = pick(found.map((d) => d.ordinal), selection.devices, 'CUDA', found.map((d) => `${d.ordinal} (${d.name})`));
    return chosen.flatMap((ordinal) => {
      const device = found.find((d) => d.ordinal === ordinal)!;
      const env = cudaWorkerEnv(ordinal, selection.discover?.env ?? process.env);
      return replicate(workers, { label: `cuda:${ordinal}`, kind: 'cuda' as const, id: ordinal, name: device.name, env });
    });
  }

  if (backend === 'webgpu') {
    const found = (await (selection.discover?.webgpu ?? listWebGpuAdapters)()).filter((a) => !isSoftwareAdapter(a));
    if (hasTwins(found)) return isolatedWebGpuDevices(found, selection, workers);
    const chosen = pick(found.map((a) => a.index), selection.devices, 'WebGPU', found.map((a) => `${a.index} (${a.backend}: ${a.name})`));
    return chosen.flatMap((index) => {
      const adapter = found.find((a) => a.index === index)!;
      const env = dawnFlagsToEnv(adapterFlags(adapter));
      return replicate(workers, { label: `webgpu:${index}`, kind: 'webgpu' as const, id: index, name: adapter.name, env });
    });
  }

  throw new DeviceSelectionError(`unknown backend '${String(backend)}'`);
}

/** cuda's worker slots planned before the driver has answered (besideCudaProbe). */
export interface CudaWorkersBesideProbe {
  devices: DeviceInfo[];
  /** Resolves once the driver has the GPUs; rejects as resolveDevices would (no GPU, a number it does not have). */
  confirmed: Promise<void>;
}

/**
 * `--backend cuda --devices …`: the worker slots from the numbers alone (each GPU's environment needs no driver), so
 * that the workers start while this process's driver initialises (cuInit of every GPU: 0.5–1 s, which the workers'
 * start used to wait for). What resolveDevices refuses is still refused, with its messages: at once where the answer
 * is at hand (missing libraries, a probe already made), else by `confirmed`.
 */
export async function besideCudaProbe(
  requested: number[],
  workers = 1,
  env: NodeJS.ProcessEnv = process.env,
  ask: () => Promise<CudaProbe> = cudaProbeAsync,
): Promise<CudaWorkersBesideProbe> {
  if (!Number.isInteger(workers) || workers < 1) throw new DeviceSelectionError(`workers must be a positive integer, got ${workers}`);
  const twice = requested.find((id, i) => requested.indexOf(id) !== i);
  if (twice !== undefined) throw new DeviceSelectionError(`CUDA device ${twice} is listed twice in --devices`);
  const answer = ask();
  const check = (probe: CudaProbe): void => {
    if (!probe.ok) throw new DeviceSelectionError(`no CUDA device for --backend cuda: ${probe.reason}`);
    pick(probe.devices.map((d) => d.ordinal), requested, 'CUDA', probe.devices.map((d) => `${d.ordinal} (${d.name})`));
  };
  // An answer that needs no driver call (libraries missing, or asked before) comes before the next turn of the loop.
  const early = await Promise.race([answer, new Promise<undefined>((resolve) => setImmediate(resolve, undefined))]);
  if (early) check(early);
  const devices = requested.flatMap((ordinal) => replicate(workers, { label: `cuda:${ordinal}`, kind: 'cuda' as const, id: ordinal, env: cudaWorkerEnv(ordinal, env) }));
  const confirmed = answer.then(check);
  confirmed.catch(() => undefined); // the caller's to await; unawaited, a refusal must not end the process by itself
  return { devices, confirmed };
}

/** The Dawn flags that select `adapter` (by backend and name, Dawn's only selectors). */
function adapterFlags(adapter: WebGpuAdapter): string[] {
  return [`backend=${adapter.backend}`, `adapter=${adapter.name}`];
}

function hasTwins(adapters: WebGpuAdapter[]): boolean {
  return new Set(adapters.map((a) => a.name)).size < adapters.length;
}

/**
 * Several WebGPU adapters share a name (identical GPUs): Dawn's only selector, "first adapter whose name
 * contains …", cannot tell them apart, so each worker instead runs with every other NVIDIA GPU's device
 * node hidden (device-isolation.ts) and Dawn sees its GPU alone. Device numbers are then the driver's PCI
 * order — nvidia-smi's numbers. Refused, never guessed, where that cannot be done.
 */
async function isolatedWebGpuDevices(found: WebGpuAdapter[], selection: DeviceSelection, workers: number): Promise<DeviceInfo[]> {
  const nodes = await (selection.discover?.nvidiaNodes ?? listNvidiaDeviceNodes)();
  const names = [...new Set(found.map((a) => a.name))];
  const refuse = (why: string) =>
    new DeviceSelectionError(
      `WebGPU adapters ${found.map((a) => `${a.index} (${a.name})`).join(', ')} include identical GPUs, which Dawn cannot tell apart by name; ${why}. Use --backend cuda (or tensorflow), which pins GPUs with ${cudaVisibleDevicesEnvVar}, or run where GPUs can be hidden per worker.`,
    );
  if (nodes.length !== found.length || names.length !== 1) {
    throw refuse(`hiding all but one GPU per worker needs every adapter to be an NVIDIA GPU listed in /proc/driver/nvidia/gpus (found ${nodes.length} there for ${found.length} adapters)`);
  }
  const unavailable = (selection.discover?.isolationUnavailable ?? isolationUnavailable)();
  if (unavailable) throw refuse(unavailable);
  const adapter = found[0];
  const chosen = pick(nodes.map((n) => n.index), selection.devices, 'WebGPU', nodes.map((n) => `${n.index} (${adapter.name}, PCI ${n.busId})`));
  return chosen.flatMap((index) => {
    const hideDeviceNodes = nodes.filter((n) => n.index !== index).map((n) => n.path);
    const env = dawnFlagsToEnv(adapterFlags(adapter));
    const device = { label: `webgpu:${index}`, kind: 'webgpu' as const, id: index, name: `${adapter.name} (PCI ${nodes[index].busId})`, env, hideDeviceNodes };
    return replicate(workers, device);
  });
}

function pick(available: number[], requested: number[] | undefined, what: string, described: string[]): number[] {
  if (available.length === 0) throw new DeviceSelectionError(`no ${what} device found`);
  if (!requested || requested.length === 0) return available;
  const seen = new Set<number>();
  for (const id of requested) {
    if (!available.includes(id)) {
      throw new DeviceSelectionError(`${what} device ${id} does not exist; available: ${described.join(', ')}`);
    }
    if (seen.has(id)) throw new DeviceSelectionError(`${what} device ${id} is listed twice in --devices`);
    seen.add(id);
  }
  return requested;
}

function replicate(count: number, device: DeviceInfo): DeviceInfo[] {
  return Array.from({ length: count }, () => ({ ...device, env: { ...device.env }, ...(device.hideDeviceNodes ? { hideDeviceNodes: [...device.hideDeviceNodes] } : {}) }));
}
