import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

/** Absolute paths of what the backend loads through koffi, plus NVRTC's include folder. */
export interface CudaLibraries {
  /** libcuda.so.1, the driver API (comes with the NVIDIA driver, not the toolkit). */
  cuda: string;
  cublasLt: string;
  nvrtc: string;
  /**
   * libnvrtc-builtins.so.<major>.<minor> beside `nvrtc`. NVRTC dlopens it by that soname when it compiles;
   * loading this path first makes that lookup succeed even where NVRTC's own RUNPATH would not.
   */
  nvrtcBuiltins: string;
  /** Folder holding cuda_fp16.h, for NVRTC's --include-path (NVRTC 13 has no built-in fp16 header). */
  includeDir: string;
  searched: SearchedFolders;
}

export type CudaComponent = 'cuda' | 'cublasLt' | 'nvrtc' | 'includeDir';
/** Every folder looked in, per component, in search order (the driver's list ends with /etc/ld.so.cache). */
export type SearchedFolders = Record<CudaComponent, string[]>;

export interface DiscoveryOptions {
  env?: NodeJS.ProcessEnv;
  exists?: (path: string) => boolean;
  /** Names in a folder; may throw for a missing folder. */
  readdir?: (dir: string) => string[];
  /** The bytes of /etc/ld.so.cache as a latin1 string; may throw. */
  ldCache?: () => string;
}

const LABELS: Record<CudaComponent, string> = {
  cuda: 'libcuda.so.1 (NVIDIA driver)',
  cublasLt: 'cuBLASLt (libcublasLt.so.13, .so.12 or .so)',
  nvrtc: 'NVRTC (libnvrtc.so.13, .so.12 or .so, with libnvrtc-builtins.so.* beside it)',
  includeDir: 'CUDA headers (a folder with cuda_fp16.h)',
};

/** Thrown once, naming every missing component and where it was looked for. */
export class CudaLibrariesNotFoundError extends Error {
  override readonly name = 'CudaLibrariesNotFoundError';

  constructor(
    message: string,
    readonly missing: CudaComponent[],
    readonly searched: SearchedFolders,
  ) {
    super(message);
  }
}

/** One line per missing component (`where`: the folders, shortened), then how to fix it. */
function notFoundMessage(missing: CudaComponent[], where: Record<CudaComponent, string>, notes: Partial<Record<CudaComponent, string>>): string {
  const lines = missing.map((c) => `  - ${LABELS[c]}: looked in ${where[c]}${notes[c] ? `; ${notes[c]}` : ''}`);
  if (missing.includes('cuda')) {
    lines.push('libcuda.so.1 comes with the NVIDIA driver: install it (in a container: run with --gpus, NVIDIA Container Toolkit).');
  }
  if (missing.some((c) => c !== 'cuda')) {
    lines.push(
      'Set VIRNUCPRO_CUDA_HOME to a CUDA toolkit (e.g. /usr/local/cuda-13.0), or in the active Python env ' +
        '`pip install nvidia-cublas nvidia-cuda-nvrtc nvidia-cuda-runtime` (CUDA 13; -cu12 names for CUDA 12) ' +
        'or install PyTorch with CUDA.',
    );
  }
  return ['CUDA libraries not found:', ...lines].join('\n');
}

/** CUDA majors known by file name, newest first. */
const MAJORS = [13, 12];
const TOOLKIT_LIB_DIRS = ['lib64', 'lib', 'targets/x86_64-linux/lib'];
const TOOLKIT_INCLUDE_DIRS = ['include', 'targets/x86_64-linux/include'];
const DRIVER_DIRS = ['/usr/local/nvidia/lib64', '/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/lib/x86_64-linux-gnu', '/usr/lib/wsl/lib'];
const LD_CACHE = '/etc/ld.so.cache';

/** One place CUDA may be installed; the folders of a component are tried in order. */
interface Source {
  /** Sources of one group (a toolkit root, a site-packages folder) are shown as one entry in the error. */
  group: string;
  cublasLt: string[];
  nvrtc: string[];
  include: string[];
  /** Known from the layout (pip's nvidia/cu13); otherwise read from versioned library names in `versionDirs`. */
  major?: number;
  versionDirs: string[];
}

interface Candidate {
  path: string;
  /** undefined: fits any CUDA major. */
  major?: number;
  /** Index of its source: lower = preferred. */
  rank: number;
  builtins?: string;
}

type Fs = { exists: (path: string) => boolean; readdir: (dir: string) => string[] };

export function findCudaLibraries(options: DiscoveryOptions = {}): CudaLibraries {
  const env = options.env ?? process.env;
  const exists = options.exists ?? existsSync;
  const readdirRaw = options.readdir ?? ((dir: string) => readdirSync(dir));
  const readdir = (dir: string): string[] => {
    try {
      return readdirRaw(dir);
    } catch {
      return [];
    }
  };
  const fs: Fs = { exists, readdir };

  const ldDirs = splitPath(env.LD_LIBRARY_PATH);
  const driverDirs = unique([...ldDirs, ...DRIVER_DIRS]);
  const cuda = driverDirs.map((d) => join(d, 'libcuda.so.1')).find(exists) ?? driverFromLdCache(options.ldCache, exists);

  const sources = cudaSources(env, ldDirs, readdir);
  const cublasLt: Candidate[] = [];
  const nvrtc: Candidate[] = [];
  const include: Candidate[] = [];
  const noBuiltins: string[] = [];
  sources.forEach((source, rank) => {
    const sourceMajor = source.major ?? majorIn(source.versionDirs, readdir);
    for (const dir of source.cublasLt) cublasLt.push(...libsIn(dir, 'libcublasLt', sourceMajor, rank, fs));
    for (const dir of source.nvrtc) {
      for (const lib of libsIn(dir, 'libnvrtc', sourceMajor, rank, fs)) {
        lib.builtins = builtinsBeside(dir, lib.major, readdir);
        if (lib.builtins) nvrtc.push(lib);
        else noBuiltins.push(lib.path);
      }
    }
    for (const dir of source.include) {
      if (exists(join(dir, 'cuda_fp16.h'))) include.push({ path: dir, major: sourceMajor, rank });
    }
  });

  const searched: SearchedFolders = {
    cuda: [...driverDirs, LD_CACHE],
    cublasLt: unique(sources.flatMap((s) => s.cublasLt)),
    nvrtc: unique(sources.flatMap((s) => s.nvrtc)),
    includeDir: unique(sources.flatMap((s) => s.include)),
  };
  const chosen = pickConsistent([cublasLt, nvrtc, include]);
  const missing: CudaComponent[] = [];
  if (!cuda) missing.push('cuda');
  if (!cublasLt.length) missing.push('cublasLt');
  if (!nvrtc.length) missing.push('nvrtc');
  if (!include.length) missing.push('includeDir');
  if (!cuda || !chosen) {
    const where: Record<CudaComponent, string> = {
      cuda: searched.cuda.join(', '),
      cublasLt: displayGroups(sources, (s) => s.cublasLt),
      nvrtc: displayGroups(sources, (s) => s.nvrtc),
      includeDir: displayGroups(sources, (s) => s.include),
    };
    const notes = noBuiltins.length ? { nvrtc: `no libnvrtc-builtins.so.* beside ${unique(noBuiltins).join(', ')}` } : {};
    throw new CudaLibrariesNotFoundError(notFoundMessage(missing, where, notes), missing, searched);
  }
  const [lt, rtc, inc] = chosen;
  return { cuda, cublasLt: lt.path, nvrtc: rtc.path, nvrtcBuiltins: rtc.builtins!, includeDir: inc.path, searched };
}

/**
 * Where cuBLASLt, NVRTC and the headers may be, most explicit first: the env roots and /usr/local/cuda, then
 * LD_LIBRARY_PATH, then pip wheels in site-packages.
 */
function cudaSources(env: NodeJS.ProcessEnv, ldDirs: string[], readdir: (dir: string) => string[]): Source[] {
  const roots = unique([env.VIRNUCPRO_CUDA_HOME, env.CUDA_HOME, env.CUDA_PATH, '/usr/local/cuda'].filter(nonEmpty).map((r) => resolve(r)));
  const toolkits = roots.map((root): Source => {
    const libs = TOOLKIT_LIB_DIRS.map((d) => join(root, d));
    return { group: root, cublasLt: libs, nvrtc: libs, include: TOOLKIT_INCLUDE_DIRS.map((d) => join(root, d)), versionDirs: libs };
  });
  // A lib folder on LD_LIBRARY_PATH is taken to sit in a toolkit-like tree with headers in ../include.
  const ld = ldDirs.map((dir): Source => ({
    group: dir,
    cublasLt: [dir],
    nvrtc: [dir],
    include: [join(dirname(dir), 'include')],
    versionDirs: [dir],
  }));
  const pip = sitePackages(env, readdir).flatMap((sp): Source[] => {
    const nv = join(sp, 'nvidia');
    return [
      // CUDA 13 wheels (nvidia-cublas, nvidia-cuda-nvrtc, nvidia-cuda-runtime ~= 13) share one folder; PyTorch
      // cu130 installs them. Its include has cuda_fp16.h but no crt/ (no mma.h).
      { group: sp, cublasLt: [join(nv, 'cu13/lib')], nvrtc: [join(nv, 'cu13/lib')], include: [join(nv, 'cu13/include')], major: 13, versionDirs: [] },
      // CUDA 12 (and 11) wheels (nvidia-*-cu12) keep one folder per package. Assumed, as CuPy and NVIDIA's
      // cuda-pathfinder do: cuda_fp16.h (and the vector_types.h etc. it includes since 12.2) come with
      // nvidia-cuda-runtime-cu12 in cuda_runtime/include, whose lib/ (libcudart.so.N) tells the major.
      {
        group: sp,
        cublasLt: [join(nv, 'cublas/lib')],
        nvrtc: [join(nv, 'cuda_nvrtc/lib')],
        include: [join(nv, 'cuda_runtime/include')],
        versionDirs: [join(nv, 'cuda_runtime/lib'), join(nv, 'cublas/lib'), join(nv, 'cuda_nvrtc/lib')],
      },
    ];
  });
  return [...toolkits, ...ld, ...pip];
}

/** Site-packages folders of the active virtualenv/conda env, system Pythons and the user's ~/.local. */
function sitePackages(env: NodeJS.ProcessEnv, readdir: (dir: string) => string[]): string[] {
  // `<prefix>/lib/python3*/<leaf>`, newest Python first; when nothing matches, the pattern itself stands in
  // so the error still shows it was looked at (a path with '*' exists nowhere).
  const glob = (prefix: string, leaf: string): string[] => {
    const lib = join(prefix, 'lib');
    const pythons = readdir(lib)
      .filter((n) => /^python3(\.\d+t?)?$/.test(n))
      .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
    return pythons.length ? pythons.map((p) => join(lib, p, leaf)) : [join(lib, 'python3*', leaf)];
  };
  const home = env.HOME || homedir();
  return unique([
    ...(env.VIRTUAL_ENV ? glob(resolve(env.VIRTUAL_ENV), 'site-packages') : []),
    ...(env.CONDA_PREFIX ? glob(resolve(env.CONDA_PREFIX), 'site-packages') : []),
    ...glob('/usr/local', 'dist-packages'),
    ...glob('/usr/local', 'site-packages'),
    '/usr/lib/python3/dist-packages',
    ...glob(join(home, '.local'), 'site-packages'),
  ]);
}

/** `<base>.so.13`, `.so.12`, then the unversioned `.so` (which takes the source's major, if known). */
function libsIn(dir: string, base: string, sourceMajor: number | undefined, rank: number, fs: Fs): Candidate[] {
  const names = [...MAJORS.map((major) => ({ name: `${base}.so.${major}`, major })), { name: `${base}.so`, major: sourceMajor }];
  return names.filter(({ name }) => fs.exists(join(dir, name))).map(({ name, major }) => ({ path: join(dir, name), major, rank }));
}

/** The shortest matching name is the soname NVRTC dlopens (.so.13.0), not the fully versioned file behind it. */
function builtinsBeside(dir: string, major: number | undefined, readdir: (dir: string) => string[]): string | undefined {
  const names = readdir(dir).filter((n) => {
    const m = /^libnvrtc-builtins\.so\.(\d+)(\.\d+)*$/.exec(n);
    return m !== null && (major === undefined || Number(m[1]) === major);
  });
  names.sort((a, b) => a.length - b.length || a.localeCompare(b));
  return names.length ? join(dir, names[0]) : undefined;
}

/** The CUDA major that versioned library names in these folders show (the newest, if several). */
function majorIn(dirs: string[], readdir: (dir: string) => string[]): number | undefined {
  const majors = dirs.flatMap((d) =>
    readdir(d).flatMap((n) => {
      const m = /^lib(?:cudart|cublasLt|cublas|nvrtc)\.so\.(\d+)$/.exec(n);
      return m ? [Number(m[1])] : [];
    }),
  );
  return majors.length ? Math.max(...majors) : undefined;
}

/**
 * One candidate per component, all of one CUDA major where possible (a 12 NVRTC with 13 headers may not
 * compile). Majors are tried in the order their most preferred candidate appears, so an explicit
 * VIRNUCPRO_CUDA_HOME keeps its version; with no consistent set, the most preferred of each is mixed.
 */
function pickConsistent(lists: Candidate[][]): Candidate[] | undefined {
  if (lists.some((l) => l.length === 0)) return undefined;
  const known = lists.flat().filter((c) => c.major !== undefined).sort((a, b) => a.rank - b.rank);
  for (const major of unique(known.map((c) => c.major))) {
    const set = lists.map((l) => l.find((c) => c.major === undefined || c.major === major));
    if (set.every((c) => c !== undefined)) return set as Candidate[];
  }
  return lists.map((l) => l[0]);
}

/**
 * Paths ending in /libcuda.so.1 in the linker cache. Both cache formats keep each library's full path as a
 * NUL-terminated string, but glibc's current format (checked: Debian glibc 2.36) stores the name only as the
 * tail of that path, so "name\0 then the next string" would read another library's path there.
 */
function driverFromLdCache(ldCache: (() => string) | undefined, exists: (path: string) => boolean): string | undefined {
  let text: string;
  try {
    text = ldCache ? ldCache() : readFileSync(LD_CACHE, 'latin1');
  } catch {
    return undefined;
  }
  const paths = [...text.matchAll(/[\x20-\x7e]*\/libcuda\.so\.1(?=\0)/g)].map((m) => m[0].slice(m[0].indexOf('/')));
  return paths.find(exists);
}

/** Folders of one group shown as `/root/{a,b}`, to keep each error line short. */
function displayGroups(sources: Source[], dirsOf: (s: Source) => string[]): string {
  const groups = new Map<string, string[]>();
  for (const s of sources) groups.set(s.group, [...(groups.get(s.group) ?? []), ...dirsOf(s)]);
  return [...groups.values()].map((dirs) => brace(unique(dirs))).join(', ');
}

function brace(dirs: string[]): string {
  if (dirs.length < 2) return dirs[0] ?? '';
  let p = 0;
  while (dirs.every((d) => d[p] === dirs[0][p]) && p < dirs[0].length) p++;
  p = dirs[0].lastIndexOf('/', p - 1) + 1;
  const rests = dirs.map((d) => d.slice(p));
  let s = 0;
  while (rests.every((r) => s < r.length && r[r.length - 1 - s] === rests[0][rests[0].length - 1 - s])) s++;
  const tail = rests[0].slice(rests[0].length - s);
  const cut = tail.includes('/') ? tail.slice(tail.indexOf('/')) : '';
  const middles = rests.map((r) => r.slice(0, r.length - cut.length));
  return `${dirs[0].slice(0, p)}{${middles.join(',')}}${cut}`;
}

/** LD_LIBRARY_PATH folders; empty entries (the current folder to ld.so) are skipped. */
function splitPath(value: string | undefined): string[] {
  return unique((value ?? '').split(':').filter(nonEmpty).map((d) => resolve(d)));
}

function nonEmpty(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

function unique<T>(values: T[]): T[] {
  return [...new Set(values)];
}
