import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const VULKAN_LOADER = 'libvulkan.so.1';

/**
 * Whether Dawn could find a GPU API at all. On Linux Dawn reaches GPUs only through Vulkan, and when
 * the Vulkan loader (libvulkan.so.1) is missing it prints "Warning: Couldn't load Vulkan: …" straight to
 * stderr from native code (nothing in JS can catch it) and finds no adapter. Looking for the loader
 * first, where the dynamic linker would (LD_LIBRARY_PATH, /etc/ld.so.cache, the default folders), keeps
 * a GPU-less machine's stderr clean. Other platforms (Metal, D3D12) are not pre-checked: true.
 */
export function gpuApiAvailable(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): boolean {
  if (platform !== 'linux') return true;
  const dirs = [
    ...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    '/lib', '/usr/lib', '/lib64', '/usr/lib64',
    '/lib/x86_64-linux-gnu', '/usr/lib/x86_64-linux-gnu', '/lib/aarch64-linux-gnu', '/usr/lib/aarch64-linux-gnu',
  ];
  if (dirs.some((dir) => existsSync(join(dir, VULKAN_LOADER)))) return true;
  try {
    // The linker's cache lists every library name ldconfig found, as NUL-terminated strings.
    return readFileSync('/etc/ld.so.cache').includes(`${VULKAN_LOADER}\0`);
  } catch {
    return false;
  }
}

/**
 * Makes WebGPU available in Node through Dawn (the `webgpu` npm package): installs its globals
 * (GPUBufferUsage, ...) and `navigator.gpu`, which @tensorflow/tfjs-backend-webgpu looks for.
 * Returns false (and changes nothing) when no adapter exists, e.g. on a machine without a GPU.
 */
export async function installNodeWebGpu(dawnOptions: string[] = dawnFlagsFromEnv()): Promise<boolean> {
  const g = globalThis as { navigator?: { gpu?: { requestAdapter(o?: unknown): Promise<unknown> } } };
  if (!g.navigator?.gpu) {
    const { create, globals } = (await import('webgpu')) as unknown as {
      create(options: string[]): { requestAdapter(o?: unknown): Promise<unknown> };
      globals: Record<string, unknown>;
    };
    const gpu = create(dawnOptions);
    const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    if (!adapter) return false;
    Object.assign(globalThis, globals);
    if (g.navigator) {
      Object.defineProperty(g.navigator, 'gpu', { value: gpu, configurable: true });
    } else {
      Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    }
    return true;
  }
  return (await g.navigator.gpu.requestAdapter({ powerPreference: 'high-performance' })) != null;
}

/** Environment variable holding Dawn flags as a JSON array (set per worker process by @virnucpro/runtime). */
export const dawnFlagsEnvVar = 'VIRNUCPRO_DAWN_FLAGS';

/** The environment that hands `flags` to a process's dawnFlagsFromEnv() (a worker's: @virnucpro/runtime). */
export function dawnFlagsToEnv(flags: string[]): Record<string, string> {
  return { [dawnFlagsEnvVar]: JSON.stringify(flags) };
}

/** Dawn flags from $VIRNUCPRO_DAWN_FLAGS, e.g. ["backend=vulkan","adapter=NVIDIA H200"]; [] when unset. */
export function dawnFlagsFromEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  const text = env[dawnFlagsEnvVar];
  if (!text) return [];
  const flags: unknown = JSON.parse(text);
  if (!Array.isArray(flags) || !flags.every((f) => typeof f === 'string')) {
    throw new Error(`${dawnFlagsEnvVar} must be a JSON array of strings, got ${text}`);
  }
  return flags;
}
