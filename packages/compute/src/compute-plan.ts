import type { BackendName, Precision } from '@virnucpro/ops';
import { ONEDNN_INSTALL_HINT } from '@virnucpro/tfjs-backend-onednn';
import { DeviceSelectionError, type DeviceInfo } from '@virnucpro/runtime';
import { backends, type ComputeSettings } from './backends.js';
import { cudaProbe } from './cuda-probe.js';
import { besideCudaProbe, resolveDevices } from './devices.js';
import { AUTO_NOTE, ComputeSettingError, precisionNote, resolvePrecision } from './precision.js';
import { resolveBackend, type BackendAttempt, type BackendChoice } from './resolve-backend.js';
import { tokenBudgetFor } from './token-budget.js';

/** The user's compute flags, as given. */
export interface ComputeRequest {
  backend: BackendChoice;
  precision?: Precision;
  /** `--devices 0,2`: GPU numbers (GPU backends only). */
  devices?: number[];
  /** Worker processes: CPU backends = total count; GPU backends = per device. 0 or absent: no worker processes. */
  workers?: number;
  /** `--token-budget`, if given. */
  tokenBudget?: number;
  /** CPU threads (a CPU backend's GEMMs and row kernels, the MLP), if given. */
  threads?: number;
  /** Hears why `auto` skipped each backend it passed. */
  onAttempt?: (attempt: BackendAttempt) => void;
}

/** What the flags mean on this machine: everything concrete. */
export interface ComputePlan {
  /** What each worker starts (startCompute). */
  settings: ComputeSettings;
  /** One per worker process (`--devices`/`--workers`), or undefined: the models in this process (a worker thread). */
  devices?: DeviceInfo[];
  tokenBudget: number;
  /**
   * `--backend cuda --devices …`: the devices were planned before the driver answered (besideCudaProbe); this
   * rejects with a DeviceSelectionError if it does not have them. Await it before trusting the workers' start.
   */
  devicesConfirmed?: Promise<void>;
  /** One-line notes for the user about the choice (e.g. what to install for a faster backend `auto` had to skip). */
  notes: string[];
}

/**
 * Turns the flags into a plan, once, in the parent: `auto` resolved (resolveBackend), the precision checked
 * against the backend and defaulted, the devices of the worker processes listed (cuda's from the same probe
 * that resolved it), the token budget chosen for the backend. Refusals say which flag is wrong.
 */
export async function planCompute(request: ComputeRequest): Promise<ComputePlan> {
  const requestedDevices = request.devices ?? [];
  const workerProcesses = requestedDevices.length > 0 || (request.workers ?? 0) > 0;
  // --backend cuda --devices …: the workers need no answer from this process's driver to start, so they start
  // beside it (devicesConfirmed); its refusals keep their messages.
  // (VIRNUCPRO_CUDA_PROBE_FIRST=1: they wait for it, as before; the A/B of a run's start.)
  const beside =
    request.backend === 'cuda' && requestedDevices.length > 0 && process.env.VIRNUCPRO_CUDA_PROBE_FIRST !== '1'
      ? await besideCudaProbe(requestedDevices, (request.workers ?? 0) > 0 ? request.workers : 1)
      : undefined;
  if (request.backend === 'cuda' && workerProcesses && !beside) {
    // The same probe, refused as the device list it was asked for.
    const probe = cudaProbe();
    if (!probe.ok) throw new DeviceSelectionError(`no CUDA device for --backend cuda: ${probe.reason}`);
  }
  const skipped = new Map<BackendName, string>();
  const backend = beside ? 'cuda' : await resolveBackend(request.backend, (attempt) => {
    if (!attempt.ok) skipped.set(attempt.backend, attempt.reason ?? '');
    request.onAttempt?.(attempt);
  });
  if (requestedDevices.length > 0 && backends[backend].runsOn === 'cpu') {
    throw new ComputeSettingError(`--devices selects GPUs; backend '${backend}' runs on the CPU (use --workers N for N worker processes)`);
  }
  const precision = resolvePrecision(backend, request.precision, request.backend === 'auto' && backend !== 'cuda' ? AUTO_NOTE : '');
  const settings: ComputeSettings = { backend, precision, ...(request.threads !== undefined ? { threads: request.threads } : {}) };
  const devices = beside
    ? beside.devices
    : workerProcesses
    ? await resolveDevices({
        backend,
        devices: requestedDevices.length ? requestedDevices : undefined,
        workers: (request.workers ?? 0) > 0 ? request.workers : undefined,
      })
    : undefined;
  return {
    settings,
    ...(devices ? { devices } : {}),
    ...(beside ? { devicesConfirmed: beside.confirmed } : {}),
    tokenBudget: request.tokenBudget ?? tokenBudgetFor(backend),
    notes: notesOn(backend, precision, skipped),
  };
}

/**
 * `auto` settled for a slower CPU backend because oneDNN is missing: say, in one line, what to install; and what
 * the precision costs, where it costs something (precisionNote).
 */
function notesOn(backend: BackendName, precision: Precision, skipped: Map<BackendName, string>): string[] {
  const notes: string[] = [];
  if (skipped.has('onednn') && (backend === 'wasm' || backend === 'cpu')) {
    notes.push(`running the models on '${backend}' (one core); ${ONEDNN_INSTALL_HINT}`);
  }
  const note = precisionNote(precision);
  if (note) notes.push(note);
  return notes;
}
