import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KernelCache, defaultKernelCacheDir, type KernelKeyParts } from '../src/kernel-cache.js';

const PARTS: KernelKeyParts = {
  source: 'extern "C" __global__ void k(float* x) { x[0] = 1; }',
  arch: 'sm_90',
  nvrtcVersion: '13.0',
  options: ['--gpu-architecture=sm_90', '-std=c++17'],
};

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'vnp-kernel-cache-'));
});
afterEach(() => {
  chmodSync(root, 0o755);
  rmSync(root, { recursive: true, force: true });
});

const cubin = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + 7) & 255));

describe('KernelCache.key', () => {
  const cache = new KernelCache('/unused');

  it('is a stable sha256 hex', () => {
    expect(cache.key(PARTS)).toMatch(/^[0-9a-f]{64}$/);
    expect(cache.key({ ...PARTS, options: [...PARTS.options] })).toBe(cache.key(PARTS));
  });

  it('changes when any part changes', () => {
    const variants: KernelKeyParts[] = [
      { ...PARTS, source: `${PARTS.source} ` },
      { ...PARTS, arch: 'sm_80' },
      { ...PARTS, nvrtcVersion: '12.8' },
      { ...PARTS, options: [...PARTS.options, '--use_fast_math'] },
      { ...PARTS, options: [...PARTS.options].reverse() },
      { ...PARTS, options: [PARTS.options.join(' ')] },
    ];
    const keys = new Set([cache.key(PARTS), ...variants.map((v) => cache.key(v))]);
    expect(keys.size).toBe(variants.length + 1);
  });

  it('keeps part boundaries (moving text between parts changes the key)', () => {
    expect(cache.key({ ...PARTS, source: 'ab', arch: 'c' })).not.toBe(cache.key({ ...PARTS, source: 'a', arch: 'bc' }));
  });
});

describe('KernelCache get/put', () => {
  it('round-trips, creating the folder, and leaves no temp file behind', () => {
    const cache = new KernelCache(join(root, 'a', 'b'));
    const key = cache.key(PARTS);
    expect(cache.get(key)).toBeUndefined();
    cache.put(key, cubin(1000));
    expect(cache.get(key)).toEqual(cubin(1000));
    cache.put(key, cubin(10));
    expect(cache.get(key)).toEqual(cubin(10));
    cache.put(cache.key({ ...PARTS, arch: 'sm_80' }), Buffer.alloc(0));
    expect(cache.get(cache.key({ ...PARTS, arch: 'sm_80' }))).toEqual(Buffer.alloc(0));
    expect(readdirSync(join(root, 'a', 'b')).sort()).toEqual([`${cache.key({ ...PARTS, arch: 'sm_80' })}.cubin`, `${key}.cubin`].sort());
  });

  it('ignores a truncated, corrupt or foreign entry, and put rewrites it', () => {
    const cache = new KernelCache(root);
    const key = cache.key(PARTS);
    const file = join(root, `${key}.cubin`);
    cache.put(key, cubin(500));
    const good = readFileSync(file);

    writeFileSync(file, good.subarray(0, good.length - 1)); // truncated payload
    expect(cache.get(key)).toBeUndefined();
    writeFileSync(file, good.subarray(0, 20)); // truncated header
    expect(cache.get(key)).toBeUndefined();
    const flipped = Buffer.from(good);
    flipped[flipped.length - 3] ^= 1; // same length, wrong checksum
    writeFileSync(file, flipped);
    expect(cache.get(key)).toBeUndefined();
    writeFileSync(file, Buffer.concat([good, Buffer.from([0])])); // trailing bytes
    expect(cache.get(key)).toBeUndefined();
    writeFileSync(file, cubin(500)); // a bare CUBIN without the header
    expect(cache.get(key)).toBeUndefined();

    cache.put(key, cubin(500));
    expect(cache.get(key)).toEqual(cubin(500));
  });

  it('rejects keys that are not sha256 hex (never a path outside the folder)', () => {
    const cache = new KernelCache(root);
    expect(() => cache.get('../../etc/passwd')).toThrow(TypeError);
    expect(() => cache.put('x', cubin(1))).toThrow(TypeError);
  });

  it.skipIf(process.getuid?.() === 0)('does nothing, silently, in a read-only folder', () => {
    chmodSync(root, 0o555);
    const cache = new KernelCache(root);
    const key = cache.key(PARTS);
    expect(() => cache.put(key, cubin(100))).not.toThrow();
    expect(cache.get(key)).toBeUndefined();
    expect(readdirSync(root)).toEqual([]);
  });

  it('does nothing, silently, when the folder cannot be created (works as root too)', () => {
    writeFileSync(join(root, 'file'), 'not a folder');
    const cache = new KernelCache(join(root, 'file', 'cache'));
    const key = cache.key(PARTS);
    expect(() => cache.put(key, cubin(100))).not.toThrow();
    expect(cache.get(key)).toBeUndefined();
  });

  it('does nothing, silently, when the rename fails, and removes its temp file', () => {
    const cache = new KernelCache(root);
    const key = cache.key(PARTS);
    mkdirSync(join(root, `${key}.cubin`, 'blocker'), { recursive: true }); // a non-empty folder where the entry goes
    expect(() => cache.put(key, cubin(100))).not.toThrow();
    expect(readdirSync(root)).toEqual([`${key}.cubin`]);
    expect(cache.get(key)).toBeUndefined();
  });
});

describe('defaultKernelCacheDir', () => {
  it('uses $VIRNUCPRO_CUDA_CACHE, else $XDG_CACHE_HOME, else ~/.cache', () => {
    expect(defaultKernelCacheDir({ VIRNUCPRO_CUDA_CACHE: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/c');
    expect(defaultKernelCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/virnucpro/cuda-kernels');
    expect(defaultKernelCacheDir({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe('/h/.cache/virnucpro/cuda-kernels');
    expect(defaultKernelCacheDir({ HOME: '/h' })).toBe('/h/.cache/virnucpro/cuda-kernels');
  });
});
