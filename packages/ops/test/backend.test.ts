import * as tf from '@tensorflow/tfjs-core';
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gpuApiAvailable, initBackend, resolveWasmDir, type BackendAttempt } from '../src/index.js';

describe('initBackend', () => {
  it('auto falls back past an absent CUDA GPU, an unloadable tensorflow backend and an absent GPU to a working backend', async () => {
    const attempts: BackendAttempt[] = [];
    const chosen = await initBackend('auto', {
      tensorflowModules: ['@tensorflow/tfjs-node-gpu', '@tensorflow/tfjs-node', 'virnucpro-no-such-module'],
      onAttempt: (a) => attempts.push(a),
    });
    // No NVIDIA GPU or CUDA libraries here: cuda is tried first and skipped with a reason saying what is missing.
    expect(attempts[0].backend).toBe('cuda');
    expect(attempts[0].ok).toBe(false);
    expect(attempts[0].reason).toMatch(/CUDA libraries not found|CUDA driver|the CUDA driver sees no GPU/);
    // No libtensorflow here: the next attempt must fail with a reason naming every module tried.
    expect(attempts[1].backend).toBe('tensorflow');
    expect(attempts[1].ok).toBe(false);
    expect(attempts[1].reason).toMatch(/tfjs-node-gpu.*tfjs-node.*virnucpro-no-such-module/);
    expect(attempts.at(-1)).toEqual({ backend: chosen, ok: true });
    expect(['webgpu', 'onednn', 'wasm', 'cpu']).toContain(chosen);
    expect(tf.getBackend()).toBe(chosen);
    expect(Array.from(tf.add(tf.tensor1d([1, 2]), 1).dataSync())).toEqual([2, 3]);
  });

  it('finds the Vulkan loader where the dynamic linker would, and auto skips Dawn without one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vulkan-'));
    try {
      writeFileSync(join(dir, 'libvulkan.so.1'), '');
      expect(gpuApiAvailable({ LD_LIBRARY_PATH: `/nonexistent:${dir}` })).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(gpuApiAvailable({}, 'darwin')).toBe(true); // Metal: not pre-checked
    if (!gpuApiAvailable()) {
      // This machine has no Vulkan: auto must say so instead of letting Dawn print warnings.
      const attempts: BackendAttempt[] = [];
      await initBackend('auto', { tensorflowModules: ['virnucpro-no-such-module'], onAttempt: (a) => attempts.push(a) });
      expect(attempts.find((a) => a.backend === 'webgpu')?.reason).toMatch(/no Vulkan loader \(libvulkan\.so\.1\)/);
    }
  });

  it('a named backend that cannot start throws an error saying why', async () => {
    await expect(initBackend('tensorflow', { tensorflowModules: ['virnucpro-no-such-module'] })).rejects.toThrow(
      /Cannot start tfjs backend 'tensorflow'.*virnucpro-no-such-module/,
    );
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

  it('switches between cpu and wasm', async () => {
    expect(await initBackend('cpu')).toBe('cpu');
    expect(tf.getBackend()).toBe('cpu');
    expect(await initBackend('wasm')).toBe('wasm');
    expect(tf.getBackend()).toBe('wasm');
  });
});
