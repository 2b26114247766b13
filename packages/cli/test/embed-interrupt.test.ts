// SIGINT / SIGTERM during `virnucpro embed` (through the one signal handler, @virnucpro/checkpoint's): the run
// stops before its next batch, exits 130 / 143 with one line saying so, and leaves no output and no temporary file.
// esm2 on the main thread; dnabert with its BPE on a BpePool (worker threads, which must not keep it alive).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'embed-interrupt-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Enough records that the run is still embedding when the signal comes (a fixed pseudo-random sequence). */
function records(count: number, alphabet: string): string {
  let state = 7;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, (_, i) => `>p${i}\n${Array.from({ length: 300 }, () => alphabet[next() % alphabet.length]).join('')}\n`).join('');
}

describe('virnucpro embed interrupted', () => {
  it.each([
    ['esm2', 'SIGINT', 130],
    ['esm2', 'SIGTERM', 143],
    ['dnabert', 'SIGINT', 130],
    ['dnabert', 'SIGTERM', 143],
  ] as const)('%s, %s: exits %i, one line, no output and no temporary file', async (model, signal, code) => {
    const dir = mkdtempSync(join(tmp, 'run-'));
    const input = join(dir, 'records.fa');
    writeFileSync(input, records(2000, model === 'esm2' ? 'ACDEFGHIKLMNPQRSTVWY' : 'ACGT'));
    const output = join(dir, 'out.safetensors');
    const child = spawn(process.execPath, [bin, 'embed', model, '--model', join(testData, 'demo-models', model === 'esm2' ? 'esm2-demo' : 'dnabert-s-demo'), '--input', input, '--output', output, '--backend', 'cpu', '--token-budget', '512', '--window', '4'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    // Embeddings are being written once the output's temporary file exists (a small --window makes that early).
    const writing = () => readdirSync(dir).some((name) => name.startsWith('.out.safetensors.') && name.endsWith('.tmp'));
    for (const start = Date.now(); !writing(); await new Promise((r) => setTimeout(r, 20))) {
      if (child.exitCode !== null || Date.now() - start > 60_000) throw new Error(`embed did not start writing: ${stderr}`);
    }
    child.kill(signal);
    expect(await exited, stderr).toBe(code);
    expect(stderr.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`interrupted by ${signal}; no output written$`));
    expect(existsSync(output)).toBe(false);
    expect(readdirSync(dir)).toEqual(['records.fa']);
  });
});
