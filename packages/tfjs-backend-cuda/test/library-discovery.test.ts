import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CudaLibrariesNotFoundError, findCudaLibraries, type DiscoveryOptions } from '../src/library-discovery.js';

const DRIVER = '/usr/lib/x86_64-linux-gnu/libcuda.so.1';

/** In-memory folder tree: the given files plus every folder above them. */
function fakeFs(files: string[]): Required<Pick<DiscoveryOptions, 'exists' | 'readdir'>> {
  const children = new Map<string, Set<string>>();
  const all = new Set<string>();
  for (const file of files) {
    for (let p = file; p !== '/'; p = dirname(p)) {
      all.add(p);
      const parent = dirname(p);
      if (!children.has(parent)) children.set(parent, new Set());
      children.get(parent)!.add(p.slice(parent.length === 1 ? 1 : parent.length + 1));
    }
  }
  return {
    exists: (path) => all.has(path),
    readdir: (dir) => {
      const names = children.get(dir);
      if (!names) throw Object.assign(new Error(`ENOENT: ${dir}`), { code: 'ENOENT' });
      return [...names];
    },
  };
}

/** Options for a machine holding exactly `files`, with `env` and no ld.so.cache unless given. */
function machine(files: string[], env: NodeJS.ProcessEnv = {}, ldCache = ''): DiscoveryOptions {
  return { ...fakeFs(files), env: { HOME: '/home/u', ...env }, ldCache: () => ldCache };
}

/** A CUDA toolkit of one major under `root`, in its lib64 (or targets/…) layout. */
function toolkit(root: string, major: number, layout: 'lib64' | 'targets' = 'lib64'): string[] {
  const lib = layout === 'lib64' ? `${root}/lib64` : `${root}/targets/x86_64-linux/lib`;
  const include = layout === 'lib64' ? `${root}/include` : `${root}/targets/x86_64-linux/include`;
  return [
    `${lib}/libcublasLt.so.${major}`,
    `${lib}/libnvrtc.so.${major}`,
    `${lib}/libnvrtc-builtins.so.${major}.0`,
    `${lib}/libnvrtc-builtins.so.${major}.0.88`,
    `${lib}/libcudart.so.${major}`,
    `${include}/cuda_fp16.h`,
  ];
}

function pipCu12(sp: string): string[] {
  return [
    `${sp}/nvidia/cublas/lib/libcublasLt.so.12`,
    `${sp}/nvidia/cublas/lib/libcublas.so.12`,
    `${sp}/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`,
    `${sp}/nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.8`,
    `${sp}/nvidia/cuda_runtime/lib/libcudart.so.12`,
    `${sp}/nvidia/cuda_runtime/include/cuda_fp16.h`,
  ];
}

function notFound(options: DiscoveryOptions): CudaLibrariesNotFoundError {
  try {
    findCudaLibraries(options);
  } catch (error) {
    expect(error).toBeInstanceOf(CudaLibrariesNotFoundError);
    return error as CudaLibrariesNotFoundError;
  }
  throw new Error('expected CudaLibrariesNotFoundError');
}

describe('findCudaLibraries', () => {
  it('finds a toolkit through CUDA_HOME, preferring the builtins soname NVRTC dlopens', () => {
    const libs = findCudaLibraries(machine([DRIVER, ...toolkit('/opt/cuda-12.8', 12)], { CUDA_HOME: '/opt/cuda-12.8/' }));
    expect(libs).toMatchObject({
      cuda: DRIVER,
      cublasLt: '/opt/cuda-12.8/lib64/libcublasLt.so.12',
      nvrtc: '/opt/cuda-12.8/lib64/libnvrtc.so.12',
      nvrtcBuiltins: '/opt/cuda-12.8/lib64/libnvrtc-builtins.so.12.0',
      includeDir: '/opt/cuda-12.8/include',
    });
    expect(libs.searched.cublasLt.slice(0, 3)).toEqual(['/opt/cuda-12.8/lib64', '/opt/cuda-12.8/lib', '/opt/cuda-12.8/targets/x86_64-linux/lib']);
    expect(libs.searched.includeDir).toContain('/usr/local/cuda/include');
  });

  it('finds /usr/local/cuda in the targets/x86_64-linux layout by default', () => {
    const libs = findCudaLibraries(machine([DRIVER, ...toolkit('/usr/local/cuda', 13, 'targets')]));
    expect(libs.cublasLt).toBe('/usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13');
    expect(libs.nvrtc).toBe('/usr/local/cuda/targets/x86_64-linux/lib/libnvrtc.so.13');
    expect(libs.includeDir).toBe('/usr/local/cuda/targets/x86_64-linux/include');
  });

  it('lets VIRNUCPRO_CUDA_HOME win over CUDA_HOME and /usr/local/cuda, keeping its CUDA major', () => {
    const files = [DRIVER, ...toolkit('/opt/cuda-12.4', 12), ...toolkit('/usr/local/cuda', 13), ...toolkit('/opt/other', 13)];
    const libs = findCudaLibraries(machine(files, { VIRNUCPRO_CUDA_HOME: '/opt/cuda-12.4', CUDA_HOME: '/opt/other' }));
    expect(libs.cublasLt).toBe('/opt/cuda-12.4/lib64/libcublasLt.so.12');
    expect(libs.nvrtc).toBe('/opt/cuda-12.4/lib64/libnvrtc.so.12');
    expect(libs.includeDir).toBe('/opt/cuda-12.4/include');
  });

  it('prefers .so.13 over .so.12 over the unversioned name within one folder', () => {
    const lib = '/usr/local/cuda/lib64';
    const files = [DRIVER, `${lib}/libcublasLt.so`, `${lib}/libcublasLt.so.12`, `${lib}/libcublasLt.so.13`, `${lib}/libnvrtc.so`,
      `${lib}/libnvrtc-builtins.so.13.0`, '/usr/local/cuda/include/cuda_fp16.h'];
    const libs = findCudaLibraries(machine(files));
    expect(libs.cublasLt).toBe(`${lib}/libcublasLt.so.13`);
    expect(libs.nvrtc).toBe(`${lib}/libnvrtc.so`);
    expect(libs.nvrtcBuiltins).toBe(`${lib}/libnvrtc-builtins.so.13.0`);
  });

  it('finds a LD_LIBRARY_PATH folder with its headers in ../include', () => {
    const files = [DRIVER, ...toolkit('/opt/nv', 12).map((f) => f.replace('/lib64/', '/lib/'))];
    const libs = findCudaLibraries(machine(files, { LD_LIBRARY_PATH: '::/nothing:/opt/nv/lib/' }));
    expect(libs.cublasLt).toBe('/opt/nv/lib/libcublasLt.so.12');
    expect(libs.includeDir).toBe('/opt/nv/include');
    expect(libs.searched.cublasLt).toContain('/nothing');
    expect(libs.searched.includeDir).toContain('/include'); // ../include of /nothing
  });

  it('finds the pip CUDA 13 layout (nvidia/cu13) in the active virtualenv', () => {
    const sp = '/venv/lib/python3.12/site-packages';
    const files = [DRIVER, '/venv/lib/python3.12/other', `${sp}/nvidia/cu13/lib/libcublasLt.so.13`, `${sp}/nvidia/cu13/lib/libcublas.so.13`,
      `${sp}/nvidia/cu13/lib/libnvrtc.so.13`, `${sp}/nvidia/cu13/lib/libnvrtc-builtins.so.13.0`, `${sp}/nvidia/cu13/include/cuda_fp16.h`];
    const libs = findCudaLibraries(machine(files, { VIRTUAL_ENV: '/venv' }));
    expect(libs).toMatchObject({
      cublasLt: `${sp}/nvidia/cu13/lib/libcublasLt.so.13`,
      nvrtc: `${sp}/nvidia/cu13/lib/libnvrtc.so.13`,
      nvrtcBuiltins: `${sp}/nvidia/cu13/lib/libnvrtc-builtins.so.13.0`,
      includeDir: `${sp}/nvidia/cu13/include`,
    });
  });

  it('finds the pip CUDA 12 per-library layout in ~/.local, headers from cuda_runtime/include', () => {
    const sp = '/home/u/.local/lib/python3.10/site-packages';
    const libs = findCudaLibraries(machine([DRIVER, ...pipCu12(sp)]));
    expect(libs).toMatchObject({
      cublasLt: `${sp}/nvidia/cublas/lib/libcublasLt.so.12`,
      nvrtc: `${sp}/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`,
      nvrtcBuiltins: `${sp}/nvidia/cuda_nvrtc/lib/libnvrtc-builtins.so.12.8`,
      includeDir: `${sp}/nvidia/cuda_runtime/include`,
    });
  });

  it('does not pair CUDA 12 libraries with CUDA 13 headers when a CUDA 12 set exists', () => {
    // /usr/local/cuda holds CUDA 13 headers and runtime only (as on the lent machine); pip has all of CUDA 12.
    const sp = '/usr/local/lib/python3.11/dist-packages';
    const files = [DRIVER, '/usr/local/cuda/include/cuda_fp16.h', '/usr/local/cuda/lib64/libcudart.so.13', ...pipCu12(sp)];
    const libs = findCudaLibraries(machine(files));
    expect(libs.nvrtc).toBe(`${sp}/nvidia/cuda_nvrtc/lib/libnvrtc.so.12`);
    expect(libs.includeDir).toBe(`${sp}/nvidia/cuda_runtime/include`);
  });

  it('takes the toolkit headers of the same major as pip libraries', () => {
    const sp = '/conda/lib/python3.12/site-packages';
    const files = [DRIVER, '/usr/local/cuda/include/cuda_fp16.h', '/usr/local/cuda/lib64/libcudart.so.13',
      `${sp}/nvidia/cu13/lib/libcublasLt.so.13`, `${sp}/nvidia/cu13/lib/libnvrtc.so.13`, `${sp}/nvidia/cu13/lib/libnvrtc-builtins.so.13.0`,
      `${sp}/nvidia/cu13/include/cuda_fp16.h`];
    const libs = findCudaLibraries(machine(files, { CONDA_PREFIX: '/conda' }));
    expect(libs.nvrtc).toBe(`${sp}/nvidia/cu13/lib/libnvrtc.so.13`);
    expect(libs.includeDir).toBe('/usr/local/cuda/include'); // has crt/ and mma.h, which the wheel lacks
  });

  it('mixes majors only when no consistent set exists', () => {
    const files = [DRIVER, '/usr/local/cuda/include/cuda_fp16.h', '/usr/local/cuda/lib64/libcudart.so.13',
      '/usr/local/cuda/lib64/libcublasLt.so.13', '/opt/n/lib/libnvrtc.so.12', '/opt/n/lib/libnvrtc-builtins.so.12.6'];
    const libs = findCudaLibraries(machine(files, { LD_LIBRARY_PATH: '/opt/n/lib' }));
    expect(libs.cublasLt).toBe('/usr/local/cuda/lib64/libcublasLt.so.13');
    expect(libs.nvrtc).toBe('/opt/n/lib/libnvrtc.so.12');
  });

  it('skips an NVRTC without libnvrtc-builtins beside it', () => {
    const files = [DRIVER, ...toolkit('/opt/good', 13), '/usr/local/cuda/lib64/libnvrtc.so.13', '/usr/local/cuda/lib64/libnvrtc-builtins.so.12.0'];
    const libs = findCudaLibraries(machine(files, { LD_LIBRARY_PATH: '/opt/good/lib64' }));
    expect(libs.nvrtc).toBe('/opt/good/lib64/libnvrtc.so.13');
    const error = notFound(machine([DRIVER, ...toolkit('/usr/local/cuda', 13).filter((f) => !f.includes('builtins'))]));
    expect(error.missing).toEqual(['nvrtc']);
    expect(error.message).toContain('no libnvrtc-builtins.so.* beside /usr/local/cuda/lib64/libnvrtc.so.13');
  });

  it('finds the driver through ld.so.cache in the current glibc format (name stored as the tail of its path)', () => {
    const driver = '/opt/driver/lib/libcuda.so.1';
    // glibc-ld.so.cache1.1 string table: paths only, each library name shared with its path's tail.
    const cache = 'glibc-ld.so.cache1.1\x18\x02\x00\x00&T\0\0/lib/x86_64-linux-gnu/libz.so.1\0/opt/driver/lib/libcuda.so.1\0/lib/x86_64-linux-gnu/libc.so.6\0';
    const libs = findCudaLibraries(machine([driver, ...toolkit('/usr/local/cuda', 13)], {}, cache));
    expect(libs.cuda).toBe(driver);
    expect(libs.searched.cuda.at(-1)).toBe('/etc/ld.so.cache');
  });

  it('finds the driver through ld.so.cache in the old "name\\0path\\0" format, skipping stale entries', () => {
    const cache = 'ld.so-1.7.0\x03\0\0\0libcuda.so.1\0/gone/libcuda.so.1\0libcuda.so.1\0/usr/lib/wsl/drivers/x/libcuda.so.1\0libz.so.1\0/lib/libz.so.1\0';
    const libs = findCudaLibraries(machine(['/usr/lib/wsl/drivers/x/libcuda.so.1', ...toolkit('/usr/local/cuda', 13)], {}, cache));
    expect(libs.cuda).toBe('/usr/lib/wsl/drivers/x/libcuda.so.1');
  });

  it('looks for the driver on LD_LIBRARY_PATH before the default folders', () => {
    const libs = findCudaLibraries(machine(['/drv/libcuda.so.1', DRIVER, ...toolkit('/usr/local/cuda', 13)], { LD_LIBRARY_PATH: '/drv' }));
    expect(libs.cuda).toBe('/drv/libcuda.so.1');
  });

  it('throws one error listing every missing item, every folder searched and how to fix it', () => {
    const error = notFound(
      machine(['/venv/lib/python3.12/site-packages/x'], { VIRTUAL_ENV: '/venv', CUDA_HOME: '/opt/cuda', LD_LIBRARY_PATH: '/ld' }, 'garbage'),
    );
    expect(error.name).toBe('CudaLibrariesNotFoundError');
    expect(error.missing).toEqual(['cuda', 'cublasLt', 'nvrtc', 'includeDir']);
    const lines = error.message.split('\n');
    expect(lines[0]).toBe('CUDA libraries not found:');
    expect(lines.filter((l) => l.startsWith('  - '))).toHaveLength(4);
    const line = (what: string) => lines.find((l) => l.startsWith(`  - ${what}`))!;
    expect(line('libcuda.so.1')).toContain('/ld, /usr/local/nvidia/lib64, /usr/lib/x86_64-linux-gnu, /usr/lib64, /lib/x86_64-linux-gnu, /usr/lib/wsl/lib, /etc/ld.so.cache');
    for (const what of ['cuBLASLt', 'NVRTC']) {
      expect(line(what)).toContain('/opt/cuda/{lib64,lib,targets/x86_64-linux/lib}, /usr/local/cuda/{lib64,lib,targets/x86_64-linux/lib}, /ld');
    }
    expect(line('cuBLASLt')).toContain('/venv/lib/python3.12/site-packages/nvidia/{cu13,cublas}/lib');
    expect(line('NVRTC')).toContain('/venv/lib/python3.12/site-packages/nvidia/{cu13,cuda_nvrtc}/lib');
    expect(line('CUDA headers')).toContain('/opt/cuda/{include,targets/x86_64-linux/include}');
    expect(line('CUDA headers')).toContain('/venv/lib/python3.12/site-packages/nvidia/{cu13,cuda_runtime}/include');
    expect(line('CUDA headers')).toContain('/usr/local/lib/python3*/dist-packages/nvidia/{cu13,cuda_runtime}/include');
    expect(line('CUDA headers')).toContain('/home/u/.local/lib/python3*/site-packages/nvidia/{cu13,cuda_runtime}/include');
    expect(error.message).toContain('VIRNUCPRO_CUDA_HOME');
    expect(error.message).toContain('pip install nvidia-cublas nvidia-cuda-nvrtc');
    expect(error.message).toContain('NVIDIA driver');
    // The full, unshortened lists are on the error for programs.
    expect(error.searched.cublasLt).toEqual(expect.arrayContaining(['/opt/cuda/lib64', '/ld', '/usr/lib/python3/dist-packages/nvidia/cu13/lib',
      '/venv/lib/python3.12/site-packages/nvidia/cublas/lib']));
    expect(error.searched.cuda).toContain('/etc/ld.so.cache');
  });

  it('names only what is missing', () => {
    const error = notFound(machine([DRIVER, ...toolkit('/usr/local/cuda', 13).filter((f) => !f.endsWith('cuda_fp16.h'))]));
    expect(error.missing).toEqual(['includeDir']);
    expect(error.message.split('\n').filter((l) => l.startsWith('  - '))).toHaveLength(1);
    expect(error.message).not.toContain('NVIDIA driver');
  });
});

describe('findCudaLibraries on real folders (node:fs defaults)', () => {
  let root: string | undefined;
  afterEach(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('finds a toolkit and driver written to a temp folder', () => {
    root = mkdtempSync(join(tmpdir(), 'vnp-cuda-discovery-'));
    const files = [`${root}/drv/libcuda.so.1`, ...toolkit(`${root}/cuda`, 13)];
    for (const file of files) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, '');
    }
    const libs = findCudaLibraries({ env: { VIRNUCPRO_CUDA_HOME: `${root}/cuda`, LD_LIBRARY_PATH: `${root}/drv` }, ldCache: () => '' });
    expect(libs).toMatchObject({
      cuda: `${root}/drv/libcuda.so.1`,
      cublasLt: `${root}/cuda/lib64/libcublasLt.so.13`,
      nvrtcBuiltins: `${root}/cuda/lib64/libnvrtc-builtins.so.13.0`,
      includeDir: `${root}/cuda/include`,
    });
  });
});
