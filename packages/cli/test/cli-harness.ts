// Shared by the tests that spawn the built CLI and read the embeddings it writes.
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { readSafetensors, toFloat32 } from '@virnucpro/weights';

export const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));
export const testData = fileURLToPath(new URL('../../../test-data/', import.meta.url));

export function runCli(args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8' });
}

/**
 * runCli without blocking the test worker: a long spawnSync (several predicts in one hook) keeps vitest's worker
 * from answering its runner for over a minute ("Timeout calling onTaskUpdate", which fails the run).
 */
/** Runs node with `args` (a script and its arguments) in the background; resolves with its status and output. */
export function runNodeAsync(args: string[], options: SpawnOptions = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runAsync(process.execPath, args, options);
}

/** Runs `command` with `args` in the background; resolves with its status and output. */
export function runAsync(command: string, args: string[], options: SpawnOptions = {}): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

export function runCliAsync(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runNodeAsync([bin, ...args]);
}

export interface EmbeddingFile {
  values: Float32Array;
  shape: number[];
  ids: string[];
  metadata: Record<string, string>;
}

export async function readEmbeddings(path: string): Promise<EmbeddingFile> {
  const { tensors, metadata } = await readSafetensors(path);
  const embeddings = tensors.get('embeddings');
  if (!embeddings || embeddings.dtype !== 'float32') throw new Error(`${path}: no float32 "embeddings" tensor`);
  return { values: embeddings.data as Float32Array, shape: [...embeddings.shape], ids: JSON.parse(metadata.ids) as string[], metadata };
}

/** The fixture's `mean.<i>` vectors (PyTorch reference means). */
export async function expectedMeans(path: string, count: number): Promise<Float32Array[]> {
  const { tensors } = await readSafetensors(path);
  return Array.from({ length: count }, (_, i) => toFloat32(tensors.get(`mean.${i}`)!));
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** Largest |Δ| between row i of an [N, dim] embeddings file and the reference means, over all rows. */
export function maxRowDiff(file: EmbeddingFile, means: Float32Array[]): number {
  const dim = file.shape[1];
  return Math.max(...means.map((want, i) => maxAbsDiff(file.values.subarray(i * dim, (i + 1) * dim), want)));
}

/** Leftover temp files or staging folders (names with ".tmp") in a folder. */
export function tempLeftovers(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.includes('.tmp'));
}

/** Resolves when `child` exits: its code, its signal and when (performance.now()). */
export const childExit = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })),
  );

/**
 * Waits (polling every 10 ms) until `condition` holds while `child` runs; fails naming `what` if the child ends first
 * (with `detail()`, e.g. its stderr) or after `timeoutMs`.
 */
export async function untilWhileRunning(
  condition: () => boolean,
  what: string,
  child: ChildProcess,
  options: { timeoutMs?: number; detail?: () => string } = {},
): Promise<void> {
  const started = Date.now();
  while (!condition()) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`predict exited (${child.exitCode ?? child.signalCode}) before ${what}${options.detail ? `:\n${options.detail()}` : ''}`);
    }
    if (Date.now() - started > (options.timeoutMs ?? 60_000)) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
