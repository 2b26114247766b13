import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
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
// The child imports `webgpu` by the absolute path this module resolves (not from the user's cwd).
const LIST_SCRIPT = `
const { create } = await import(process.env.VIRNUCPRO_WEBGPU_MODULE);
const gpu = create(['adapter=\\u0000virnucpro-list-adapters']);
try { await gpu.requestAdapter(); console.log(''); }
catch (error) { console.log(String(error?.message ?? error)); }
process.exit(0);
`;

export async function listWebGpuAdapters(webgpuModule: string = resolveWebGpuModule()): Promise<WebGpuAdapter[]> {
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', LIST_SCRIPT], {
      env: { ...process.env, VIRNUCPRO_WEBGPU_MODULE: webgpuModule },
      timeout: 60_000,
    }));
  } catch (error) {
    throw new Error(`cannot list WebGPU adapters: ${(error as Error).message.split('\n')[0]}`);
  }
  return parseDawnAdapterList(stdout);
}

/** file: URL of the `webgpu` package's entry as seen from here (the workspace or an app's node_modules). */
function resolveWebGpuModule(): string {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('webgpu')).href;
  } catch {
    throw new Error('cannot list WebGPU adapters: the `webgpu` package (Dawn for Node) is not installed');
  }
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
