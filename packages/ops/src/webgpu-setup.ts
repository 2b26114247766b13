/**
 * Makes WebGPU available in Node through Dawn (the `webgpu` npm package): installs its globals
 * (GPUBufferUsage, ...) and `navigator.gpu`, which @tensorflow/tfjs-backend-webgpu looks for.
 * Returns false (and changes nothing) when no adapter exists, e.g. on a machine without a GPU.
 */
export async function installNodeWebGpu(dawnOptions: string[] = []): Promise<boolean> {
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
