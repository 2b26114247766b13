import { koffi, type KoffiLibrary } from './koffi.js';
import { ONEDNN_INSTALL_HINT, onednnCandidates } from './library-discovery.js';
import { SignalGuard } from './signal-guard.js';

type Native = (...args: unknown[]) => number;

/** oneDNN's status codes (dnnl_status_t) that a sgemm call can return. */
const STATUS: Record<number, string> = { 1: 'out of memory', 2: 'invalid arguments', 3: 'unimplemented', 5: 'runtime error' };
/** dnnl_sgemm's C prototype for koffi (pointers as process addresses). */
export const SGEMM_PROTOTYPE =
  'int dnnl_sgemm(char transa, char transb, int64_t M, int64_t N, int64_t K, float alpha, uintptr_t A, int64_t lda, ' +
  'uintptr_t B, int64_t ldb, float beta, uintptr_t C, int64_t ldc)';
/** The OpenMP runtimes oneDNN's builds link (GNU, Intel, LLVM), whose thread count its GEMMs follow. */
export const OPENMP_LIBRARIES = ['libgomp.so.1', 'libiomp5.so', 'libomp.so'];
const N = 'N'.charCodeAt(0);
const T = 'T'.charCodeAt(0);

/**
 * The calls of oneDNN this backend uses: `dnnl_sgemm` (row-major fp32 GEMM, multi-threaded) and the OpenMP thread
 * count of the runtime it was built with. Pointers are passed as raw addresses (koffi `address()` of typed arrays or
 * WebAssembly memory), so a call allocates nothing.
 */
export class OnednnLibrary {
  readonly version: string;
  private readonly sgemmNative: Native;
  private readonly setThreadsNative: Native | undefined;
  private readonly maxThreadsNative: Native | undefined;
  private readonly signals = SignalGuard.create();

  constructor(readonly path: string, lib: KoffiLibrary) {
    this.sgemmNative = lib.func(SGEMM_PROTOTYPE) as Native;
    const version = lib.func('void *dnnl_version()')() as unknown;
    this.version = describeVersion(version);
    // oneDNN's OpenMP builds (Debian, conda) take their thread count from the OpenMP runtime they loaded.
    const omp = tryLoad(OPENMP_LIBRARIES);
    this.setThreadsNative = omp?.func('void omp_set_num_threads(int n)') as Native | undefined;
    this.maxThreadsNative = omp?.func('int omp_get_max_threads()') as Native | undefined;
    stopThreadsAtExit(omp);
  }

  /** C[M×N] = alpha·op(A)·op(B) + beta·C, row-major, addresses in bytes; throws on a failed status. */
  sgemm(transB: boolean, M: number, Nn: number, K: number, alpha: number, A: number, lda: number, B: number, ldb: number, beta: number, C: number, ldc: number): void {
    const call = () => this.sgemmNative(N, transB ? T : N, M, Nn, K, alpha, A, lda, B, ldb, beta, C, ldc);
    const status = this.signals ? this.signals.run(call) : call();
    if (status !== 0) throw new Error(`oneDNN dnnl_sgemm(${M}×${K}·${K}×${Nn}) failed: ${STATUS[status] ?? `status ${status}`}`);
  }

  /** Threads the GEMMs use (the OpenMP runtime's setting; undefined when the build is not OpenMP). */
  get threads(): number | undefined {
    return this.maxThreadsNative?.();
  }

  set threads(n: number | undefined) {
    if (n !== undefined) this.setThreadsNative?.(n);
  }
}

function describeVersion(pointer: unknown): string {
  try {
    const [major, minor, patch] = (koffiDecodeInts(pointer, 3));
    return `${major}.${minor}.${patch}`;
  } catch {
    return 'unknown';
  }
}

function koffiDecodeInts(pointer: unknown, count: number): number[] {
  const k = koffi() as unknown as { decode(p: unknown, type: string, length: number): number[] };
  return k.decode(pointer, 'int', count);
}

/**
 * OpenMP's worker threads spin for a while after each GEMM; if the process exits meanwhile, glibc tears down what
 * they spin on and one of them crashes (measured: 16 of 20 exits of a 2-thread run ended in SIGSEGV or "corrupted
 * size vs. prev_size"). Releasing the pool at exit (OpenMP 5's omp_pause_resource_all, omp_pause_hard) ends them first.
 */
function stopThreadsAtExit(omp: KoffiLibrary | undefined): void {
  let pause: Native | undefined;
  try {
    pause = omp?.func('int omp_pause_resource_all(int kind)') as Native | undefined;
  } catch {
    return; // an OpenMP runtime older than 5.0: nothing to release
  }
  const OMP_PAUSE_HARD = 2;
  if (pause) process.once('exit', () => pause(OMP_PAUSE_HARD));
}

function tryLoad(names: readonly string[]): KoffiLibrary | undefined {
  for (const name of names) {
    try {
      return koffi().load(name);
    } catch {
      // try the next
    }
  }
  return undefined;
}

let cached: OnednnLibrary | Error | undefined;

/**
 * oneDNN, loaded once per process from the first candidate that loads and has `dnnl_sgemm`; throws an Error
 * naming every path tried and what to install.
 */
export function loadOnednn(): OnednnLibrary {
  if (cached === undefined) {
    preferSleepingThreads();
    const tried: string[] = [];
    for (const candidate of onednnCandidates().candidates) {
      try {
        cached = new OnednnLibrary(candidate, koffi().load(candidate));
        break;
      } catch (error) {
        tried.push(`${candidate} (${(error instanceof Error ? error.message : String(error)).split('\n')[0]})`);
      }
    }
    cached ??= new Error(`oneDNN (libdnnl) not found: tried ${tried.join(', ')}; ${ONEDNN_INSTALL_HINT}`);
  }
  if (cached instanceof Error) throw cached;
  return cached;
}

/**
 * OpenMP threads that spin between GEMMs wait for a thread the OS has descheduled whenever the cores are shared
 * (a cluster node, CI, a busy workstation): measured on 2 busy cores, ESM-2 35M at 51–63 tokens/s spinning against
 * 250–313 sleeping. So waiting threads sleep unless the user asks otherwise (OMP_WAIT_POLICY, read by the OpenMP
 * runtime when oneDNN loads it).
 */
function preferSleepingThreads(): void {
  process.env.OMP_WAIT_POLICY ??= 'passive';
}

/** Whether oneDNN can be loaded here, and why not. */
export function probeOnednn(): { ok: true; version: string; path: string } | { ok: false; reason: string } {
  try {
    const lib = loadOnednn();
    return { ok: true, version: lib.version, path: lib.path };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
