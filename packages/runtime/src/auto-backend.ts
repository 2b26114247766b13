import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { BackendName } from '@virnucpro/ops';
import { listCudaDriverDevices } from './cuda-devices.js';

// initBackend('auto') of @virnucpro/ops, run in a child that prints the name it picked. The child resolves ops
// as this module sees it (not from the user's cwd), with plain Node's resolution (a test runner's conditions
// would hand it TypeScript sources).
const PROBE_SCRIPT = `
const { createRequire } = await import('node:module');
const { pathToFileURL } = await import('node:url');
const ops = createRequire(process.env.VIRNUCPRO_RESOLVE_FROM).resolve('@virnucpro/ops');
const { initBackend } = await import(pathToFileURL(ops).href);
process.stdout.write(await initBackend('auto'));
process.exit(0);
`;

/**
 * The backend `--backend auto` means for a pool's worker processes, decided without initialising any GPU
 * backend in this (parent) process: `cuda` when the CUDA driver sees a GPU and the libraries are there (asked
 * without a tfjs backend or a CUDA context), otherwise the backend `initBackend('auto')` picks in a
 * short-lived child process (tensorflow, webgpu, wasm, then cpu), the same answer the workers would reach.
 */
export async function resolveAutoBackend(): Promise<BackendName> {
  try {
    await listCudaDriverDevices();
    return 'cuda';
  } catch {
    return probeAutoBackend();
  }
}

async function probeAutoBackend(): Promise<BackendName> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', PROBE_SCRIPT], {
      env: { ...process.env, VIRNUCPRO_RESOLVE_FROM: import.meta.url },
      timeout: 120_000,
    }));
  } catch (error) {
    throw new Error(`cannot resolve --backend auto: ${(error as Error).message.split('\n')[0]}`);
  }
  return stdout.trim() as BackendName;
}
