import { fork, spawn, type ChildProcess } from 'node:child_process';
import { Worker } from 'node:worker_threads';
import { isolatedCommand } from './device-isolation.js';
import type { FromWorker, ToWorker } from './protocol.js';

/**
 * Where a pool worker runs: a child process (`--workers N`, GPUs) or a thread of this process (the
 * in-process mode). Both run the same worker-entry.mjs and speak the same protocol, so the pool
 * (credit, heartbeats, restarts, telemetry) is one code path; only this handle differs.
 */
export interface WorkerHandle {
  /** The process id (a thread reports its parent's). */
  readonly pid: number | null;
  send(message: ToWorker): void;
  /** Stops it at once, even in the middle of a batch that blocks its event loop. */
  kill(): void;
  readonly exited: boolean;
  onMessage(listener: (message: FromWorker) => void): void;
  /** `reason`: exit code, signal, or the error that ended it. */
  onExit(listener: (reason: string) => void): void;
}

export interface WorkerLaunch {
  entry: string;
  env: Record<string, string | undefined>;
  execArgv: string[];
  /** GPU device nodes to hide (child processes only: run inside `unshare`). */
  hideDeviceNodes: string[];
}

export function startWorkerProcess(launch: WorkerLaunch): WorkerHandle {
  const options = {
    serialization: 'advanced' as const, // typed arrays cross the channel without JSON
    env: launch.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'] as ['ignore', 'inherit', 'inherit', 'ipc'],
  };
  let child: ChildProcess;
  // With GPUs to hide, node runs inside `unshare` (the IPC channel's fd and NODE_CHANNEL_FD pass through exec).
  if (launch.hideDeviceNodes.length > 0) {
    const { file, args } = isolatedCommand(launch.hideDeviceNodes, process.execPath, [...launch.execArgv, launch.entry]);
    child = spawn(file, args, options);
  } else {
    child = fork(launch.entry, [], { ...options, execArgv: launch.execArgv });
  }
  let processError: string | null = null;
  // e.g. EPIPE when we send to a process that just died; the exit that follows says more.
  child.on('error', (error) => (processError ??= error.message));
  return {
    pid: child.pid ?? null,
    send: (message) => {
      if (child.connected) child.send(message);
    },
    // SIGKILL: a hung event loop ignores anything gentler.
    kill: () => child.kill('SIGKILL'),
    get exited() {
      return child.exitCode !== null || child.signalCode !== null;
    },
    onMessage: (listener) => child.on('message', listener),
    onExit: (listener) =>
      child.on('exit', (code, signal) => listener(signal ? `killed by ${signal}` : code !== null ? `exited with code ${code}` : `failed: ${processError ?? 'unknown'}`)),
  };
}

export function startWorkerThread(launch: WorkerLaunch): WorkerHandle {
  const worker = new Worker(launch.entry, { env: launch.env, execArgv: launch.execArgv });
  let exited = false;
  let threadError: string | null = null;
  worker.on('error', (error) => (threadError ??= error.message));
  worker.on('exit', () => (exited = true));
  return {
    pid: process.pid,
    send: (message) => {
      if (!exited) worker.postMessage(message);
    },
    kill: () => void worker.terminate(),
    get exited() {
      return exited;
    },
    onMessage: (listener) => worker.on('message', listener),
    onExit: (listener) => worker.on('exit', (code) => listener(threadError ? `failed: ${threadError}` : `exited with code ${code}`)),
  };
}
