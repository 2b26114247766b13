import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface WebGpuAdapter {
  /** Position in Dawn's adapter list (its enumeration order). */
  index: number;
  backend: string;
  /** `GPUAdapterInfo.device`, the string Dawn's `adapter=` flag matches as a substring. */
  name: string;
}

// dawn.node has no API that lists adapters, but requestAdapter() with an adapter name that
// matches nothing rejects with "Available adapters:\n * backend: 'vulkan', name: '…'" — the
// documented way (webgpu README) to see them. Runs in a child so the parent never loads Dawn.
const LIST_SCRIPT = `
import { create } from 'webgpu';
const gpu = create(['adapter=\\u0000virnucpro-list-adapters']);
try { await gpu.requestAdapter(); console.log(''); }
catch (error) { console.log(String(error?.message ?? error)); }
process.exit(0);
`;

export async function listWebGpuAdapters(cwd: string = process.cwd()): Promise<WebGpuAdapter[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', LIST_SCRIPT], {
      cwd,
      timeout: 60_000,
    }));
  } catch (error) {
    throw new Error(`cannot list WebGPU adapters: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseDawnAdapterList(stdout);
}

export function parseDawnAdapterList(text: string): WebGpuAdapter[] {
  const adapters: WebGpuAdapter[] = [];
  for (const match of text.matchAll(/\* backend: '([^']*)', name: '([^']*)'/g)) {
    adapters.push({ index: adapters.length, backend: match[1], name: match[2] });
  }
  return adapters;
}

/** Software rasterisers Dawn may list next to real GPUs. */
export function isSoftwareAdapter(adapter: WebGpuAdapter): boolean {
  return /llvmpipe|lavapipe|swiftshader|softpipe/i.test(adapter.name) || adapter.backend === 'null';
}
