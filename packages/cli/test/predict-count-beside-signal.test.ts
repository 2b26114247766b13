// Ctrl-C while a fresh `virnucpro predict` still counts its input (the frames computed beside the count): the run
// keeps nothing — its checkpoint has no identity before the input's fingerprint — says so, removes the folder it
// made and exits 130. Through the built CLI on ~1.8M frames of 150-bp reads, so that the count (seconds, sharing the
// main thread) outlasts the demo models' start and first frames; the signal waits on the run's progress lines.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bin, childExit, testData, untilWhileRunning } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-count-beside-signal-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** `reads` 150-bp reads at seeded positions of phage lambda (one strand: enough for a count that takes seconds). */
function writeReads(path: string, reads: number): void {
  const bases = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('').toUpperCase();
  let seed = 11;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  writeFileSync(path, '');
  for (let r = 1; r <= reads; ) {
    const lines: string[] = [];
    for (const end = Math.min(reads, r + 99_999); r <= end; r++) {
      const start = Math.floor(rand() * (bases.length - 150));
      lines.push(`>read${r}\n${bases.slice(start, start + 150)}\n`);
    }
    appendFileSync(path, lines.join(''));
  }
}

describe('virnucpro predict: a signal before the count ends', () => {
  it('SIGINT after frames were computed, before the count ended: nothing kept, said so, the folder removed, exit 130', async () => {
    const input = join(tmp, 'reads.fa');
    writeReads(input, 1_200_000); // ~190 MB: counted in ~2–3 s here, the first frames ~0.5 s after the models' start
    const out = join(tmp, 'out');
    const args = [bin, 'predict', input, '--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--token-budget', '512', '--checkpoint-every', '4', '--out-dir', out];
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, VIRNUCPRO_PROGRESS_INTERVAL: '0' } });
    const done = childExit(child);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const shards = () => (existsSync(join(out, '.checkpoints')) ? readdirSync(join(out, '.checkpoints')).filter((f) => f.endsWith('.safetensors')) : []);
    // Progress lines without a total: frames computed while the input is still being counted; and a shard written.
    await untilWhileRunning(() => /predict: ([4-9]|\d\d+) frames,/.test(stderr) && shards().length > 0, 'a shard written before the count ends', child, { detail: () => stderr });
    expect(stderr, 'the count ended before the first frames: the input is too small for this machine').not.toMatch(/predict: \d+\/\d+ frames/);
    expect(existsSync(join(out, '.checkpoints', 'manifest.json'))).toBe(false);
    child.kill('SIGINT');
    const { code } = await done;
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('stopped before the input was read through (a checkpoint needs its fingerprint), so nothing was kept');
    expect(existsSync(out)).toBe(false); // created by the run, and nothing in it a --resume could use
  });
});
