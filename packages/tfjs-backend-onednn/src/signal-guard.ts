import { koffi } from './koffi.js';

type Native = (...args: unknown[]) => number;

const SIG_BLOCK = 0;
const SIG_SETMASK = 2;
/** Signals that report a fault of the running code itself: never blocked (blocking them would hide a crash). */
const SYNCHRONOUS = [4, 5, 6, 7, 8, 11]; // SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV

/**
 * Holds back asynchronous signals from the calling thread while a native call runs. A signal handled on this
 * thread during oneDNN's sgemm (which koffi runs on a stack of its own) corrupts the malloc heap — measured with
 * V8's profiler (SIGPROF): every profiled run aborted with "corrupted size vs. prev_size", none with the signals
 * held. Held signals are delivered when the call returns (a process-wide SIGINT/SIGTERM meanwhile goes to another
 * thread, as libuv expects). Costs two small calls (~0.1 µs) per GEMM.
 */
export class SignalGuard {
  private readonly mask: Native;
  private readonly blocked = new BigUint64Array(16); // sigset_t: 1024 bits
  private readonly saved = new BigUint64Array(16);
  private readonly blockedAt: number;
  private readonly savedAt: number;

  private constructor(mask: Native) {
    this.mask = mask;
    this.blocked[0] = ~SYNCHRONOUS.reduce((bits, signal) => bits | (1n << BigInt(signal - 1)), 0n) & 0xffffffffffffffffn;
    this.blocked[1] = 0xffffffffffffffffn; // the real-time signals too
    this.blockedAt = Number(koffi().address(this.blocked));
    this.savedAt = Number(koffi().address(this.saved));
  }

  /** A guard on Linux (glibc or musl); undefined where pthread_sigmask cannot be found (then calls run unguarded). */
  static create(): SignalGuard | undefined {
    for (const name of ['libc.so.6', 'libc.musl-x86_64.so.1']) {
      try {
        return new SignalGuard(koffi().load(name).func('int pthread_sigmask(int how, uintptr_t set, uintptr_t old)') as Native);
      } catch {
        // next
      }
    }
    return undefined;
  }

  /** Runs `call` with asynchronous signals held back on this thread. */
  run<T>(call: () => T): T {
    this.mask(SIG_BLOCK, this.blockedAt, this.savedAt);
    try {
      return call();
    } finally {
      this.mask(SIG_SETMASK, this.savedAt, 0);
    }
  }
}
