import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveWasmDir } from '../src/wasm-paths.js';
import { dawnFlagsFromEnv, gpuApiAvailable } from '../src/webgpu-setup.js';

describe('what the backends need', () => {
  it('finds the Vulkan loader where the dynamic linker would (without one, auto skips Dawn: tested in @virnucpro/compute)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vulkan-'));
    try {
      writeFileSync(join(dir, 'libvulkan.so.1'), '');
      expect(gpuApiAvailable({ LD_LIBRARY_PATH: `/nonexistent:${dir}` })).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(gpuApiAvailable({}, 'darwin')).toBe(true); // Metal: not pre-checked
  });

  it('wasm binaries are found in the package, or where VIRNUCPRO_TFJS_WASM_DIR says', () => {
    expect(resolveWasmDir()).toMatch(/tfjs-backend-wasm\/dist\/$/);
    expect(() => resolveWasmDir('/nonexistent/wasm')).toThrow(/VIRNUCPRO_TFJS_WASM_DIR/);
    const old = process.env.VIRNUCPRO_TFJS_WASM_DIR;
    process.env.VIRNUCPRO_TFJS_WASM_DIR = '/nonexistent/env-wasm';
    try {
      expect(() => resolveWasmDir()).toThrow(/\/nonexistent\/env-wasm/);
    } finally {
      if (old === undefined) delete process.env.VIRNUCPRO_TFJS_WASM_DIR;
      else process.env.VIRNUCPRO_TFJS_WASM_DIR = old;
    }
  });
});

describe('Dawn flags from the environment', () => {
  it('reads the JSON array a worker is started with, and rejects anything else', () => {
    expect(dawnFlagsFromEnv({})).toEqual([]);
    expect(dawnFlagsFromEnv({ VIRNUCPRO_DAWN_FLAGS: '["backend=vulkan","adapter=NVIDIA H200"]' })).toEqual(['backend=vulkan', 'adapter=NVIDIA H200']);
    expect(() => dawnFlagsFromEnv({ VIRNUCPRO_DAWN_FLAGS: '{"a":1}' })).toThrow(/JSON array of strings/);
  });
});
