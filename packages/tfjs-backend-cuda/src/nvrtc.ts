// NVRTC (runtime compilation of CUDA C to CUBIN) through koffi.
import { bindLibrary, koffi, type NativeFunction } from './koffi.js';

/** A CUDA C source that NVRTC rejected; `log` is the compiler's output. */
export class NvrtcError extends Error {
  constructor(readonly program: string, readonly log: string) {
    super(`NVRTC could not compile ${program}:\n${log}`);
    this.name = 'NvrtcError';
  }
}

export class Nvrtc {
  private readonly fn: Record<string, NativeFunction>;
  readonly version: string;

  /** `builtinsPath` (libnvrtc-builtins) is loaded first so libnvrtc finds it whatever the loader path. */
  constructor(libraryPath: string, builtinsPath?: string) {
    if (builtinsPath) koffi().load(builtinsPath);
    this.fn = bindLibrary(libraryPath, [
      'int nvrtcVersion(void *major, void *minor)',
      'int nvrtcCreateProgram(void *program, const char *source, const char *name, int numHeaders, void *headers, void *includeNames)',
      'int nvrtcCompileProgram(void *program, int numOptions, const char **options)',
      'int nvrtcGetCUBINSize(void *program, void *size)',
      'int nvrtcGetCUBIN(void *program, void *cubin)',
      'int nvrtcGetProgramLogSize(void *program, void *size)',
      'int nvrtcGetProgramLog(void *program, void *log)',
      'int nvrtcDestroyProgram(void *program)',
    ]);
    const major = new Int32Array(1);
    const minor = new Int32Array(1);
    this.check('nvrtcVersion', this.fn.nvrtcVersion(major, minor));
    this.version = `${major[0]}.${minor[0]}`;
  }

  private check(call: string, code: number): void {
    if (code !== 0) throw new Error(`${call} failed (nvrtcResult ${code})`);
  }

  /** Compiles `source` to a CUBIN with the given options (e.g. --gpu-architecture=sm_90). */
  compile(source: string, name: string, options: string[]): Buffer {
    const handle = new BigUint64Array(1);
    this.check('nvrtcCreateProgram', this.fn.nvrtcCreateProgram(handle, source, name, 0, null, null));
    const program = handle[0];
    try {
      const code = this.fn.nvrtcCompileProgram(program, options.length, options);
      if (code !== 0) throw new NvrtcError(name, this.log(program) || `nvrtcResult ${code}`);
      const size = new BigUint64Array(1);
      this.check('nvrtcGetCUBINSize', this.fn.nvrtcGetCUBINSize(program, size));
      const cubin = Buffer.alloc(Number(size[0]));
      this.check('nvrtcGetCUBIN', this.fn.nvrtcGetCUBIN(program, cubin));
      return cubin;
    } finally {
      this.fn.nvrtcDestroyProgram(handle);
    }
  }

  private log(program: bigint): string {
    const size = new BigUint64Array(1);
    if (this.fn.nvrtcGetProgramLogSize(program, size) !== 0) return '';
    const log = Buffer.alloc(Number(size[0]));
    if (this.fn.nvrtcGetProgramLog(program, log) !== 0) return '';
    return log.toString('utf8').replace(/\0+$/, '').trim();
  }
}
