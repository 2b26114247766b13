import { execFileSync } from 'node:child_process';

/**
 * Hiding GPUs from one worker process: Dawn (WebGPU) can select an adapter only by name, so on a host of
 * identical GPUs every worker would land on the first. A worker started in a private mount namespace in
 * which the other GPUs' device nodes are bound to /dev/null sees exactly one GPU (what container runtimes do
 * to expose a subset of GPUs). Measured on 2 × H200: each worker's Dawn lists one adapter, and two workers
 * run at 1.98× the throughput of one (docs/benchmarks/gpu.md). Needs Linux, `unshare` and the right to
 * create a mount namespace (root, or CAP_SYS_ADMIN).
 */

// Binds /dev/null over each node given, then becomes the real command: `sh -c SCRIPT sh N node1..nodeN cmd args`.
const SCRIPT = 'set -e; n=$1; shift; while [ "$n" -gt 0 ]; do mount --bind /dev/null "$1"; shift; n=$((n-1)); done; exec "$@"';

/** The `unshare` invocation that runs `command args` with `hidden` device nodes unusable. */
export function isolatedCommand(hidden: readonly string[], command: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: 'unshare', args: ['--mount', '--propagation', 'private', '--', 'sh', '-c', SCRIPT, 'sh', String(hidden.length), ...hidden, command, ...args] };
}

let cached: string | undefined;

/** Why GPUs cannot be hidden from a worker here, or undefined when they can (checked once by a trial run). */
export function isolationUnavailable(): string | undefined {
  if (cached !== undefined) return cached || undefined;
  if (process.platform !== 'linux') cached = `hiding GPUs from a worker needs Linux mount namespaces (this is ${process.platform})`;
  else {
    try {
      execFileSync('unshare', ['--mount', '--propagation', 'private', '--', 'sh', '-c', 'mount --bind /dev/null /dev/null'], { stdio: 'ignore', timeout: 10_000 });
      cached = '';
    } catch (error) {
      cached = `cannot create a private mount namespace with unshare (${(error as Error).message.split('\n')[0]}); run as root or with CAP_SYS_ADMIN`;
    }
  }
  return cached || undefined;
}
