import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { writeFileAtomicSync } from '@virnucpro/atomic-file';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/** What decides NVRTC's output; pass the include path among `options` so a different header set misses. */
export interface KernelKeyParts {
  source: string;
  /** e.g. 'sm_90' */
  arch: string;
  nvrtcVersion: string;
  options: string[];
}

/** Bumped when the key recipe or the entry layout changes, so old entries simply miss. */
const FORMAT = 'virnucpro-cubin-v1';
/** Entry = MAGIC (8 bytes) | payload length (u64 LE) | sha256 of payload (32 bytes) | payload. */
const MAGIC = Buffer.from('VNPCUBN1', 'latin1');
const HEADER_BYTES = MAGIC.length + 8 + 32;
const KEY_RE = /^[0-9a-f]{64}$/;

/** $VIRNUCPRO_CUDA_CACHE, else $XDG_CACHE_HOME/virnucpro/cuda-kernels, else ~/.cache/virnucpro/cuda-kernels. */
export function defaultKernelCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.VIRNUCPRO_CUDA_CACHE) return env.VIRNUCPRO_CUDA_CACHE;
  // The XDG spec says a relative XDG_CACHE_HOME is invalid and must be ignored.
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : join(env.HOME || homedir(), '.cache');
  return join(xdg, 'virnucpro', 'cuda-kernels');
}

/**
 * On-disk cache of NVRTC output (CUBIN bytes), one file per key. Caching only saves compile time, so disk
 * trouble (read-only, full, missing, corrupt) never throws and logs nothing: a miss, or a skipped write.
 */
export class KernelCache {
  readonly dir: string;

  constructor(dir: string = defaultKernelCacheDir()) {
    this.dir = dir;
  }

  /** sha256 hex over every part; JSON keeps the boundaries between parts (['a b'] ≠ ['a', 'b']). */
  key(parts: KernelKeyParts): string {
    const text = JSON.stringify([FORMAT, parts.source, parts.arch, parts.nvrtcVersion, parts.options]);
    return createHash('sha256').update(text).digest('hex');
  }

  /** The CUBIN stored under `key`, or undefined when absent, truncated or corrupt (the caller recompiles and puts). */
  get(key: string): Buffer | undefined {
    const file = this.path(key);
    let entry: Buffer;
    try {
      entry = readFileSync(file);
    } catch {
      return undefined;
    }
    if (entry.length < HEADER_BYTES || !entry.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
    const length = entry.readBigUInt64LE(MAGIC.length);
    const payload = entry.subarray(HEADER_BYTES);
    if (length !== BigInt(payload.length)) return undefined;
    if (!sha256(payload).equals(entry.subarray(MAGIC.length + 8, HEADER_BYTES))) return undefined;
    return payload;
  }

  /** Stores atomically (@virnucpro/atomic-file), replacing any entry; never throws on I/O. */
  put(key: string, cubin: Buffer): void {
    const target = this.path(key);
    const header = Buffer.alloc(HEADER_BYTES);
    MAGIC.copy(header, 0);
    header.writeBigUInt64LE(BigInt(cubin.length), MAGIC.length);
    sha256(cubin).copy(header, MAGIC.length + 8);
    try {
      mkdirSync(this.dir, { recursive: true });
      writeFileAtomicSync(target, Buffer.concat([header, cubin]));
    } catch {
      // A cache that cannot be written only costs a recompile next time.
    }
  }

  private path(key: string): string {
    // Keys come from key(); anything else is a bug, and must never name a path outside the cache.
    if (!KEY_RE.test(key)) throw new TypeError(`KernelCache: not a sha256 hex key: ${JSON.stringify(key)}`);
    return join(this.dir, `${key}.cubin`);
  }
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}
