// Issue 46 ("flat memory"), predict's main process: its peak RSS must not grow with the input. The command's own
// code (resolvePredictOptions → runPredict: count, checkpoint, ordering, writer, report) on simulated devices —
// tools/bench/host-pipeline, run as a process (two worker processes that score frames at once, so the main process
// is all there is to measure) — on ~25,000 and ~200,000 frames of 150-bp reads: the larger run's peak RSS within
// 40 % of the smaller's. The benchmark holds 100,000 vs 2,000,000 frames to 10 % (docs/benchmarks/scaling.md); here
// the smaller run ends while the process is still growing into its steady state (V8's young generation, the first
// full collections), and the bound only has to tell a heap bounded by its live data from one V8 lets grow to four
// times it. 2-core development machine, 2026-11-28: before the fixes 176–182 vs 307–336 MB (1.69–1.91×: fails),
// after 163–167 vs 211–214 MB (1.26–1.31×).
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testData } from './cli-harness.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'predict-memory-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const COMPLEMENT: Record<string, string> = { A: 'T', C: 'G', G: 'C', T: 'A', N: 'N' };

/** The bases of a FASTA file's records, joined (upper case). */
const genome = (file: string) => readFileSync(join(testData, file), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('').toUpperCase();

/** `reads` 150-bp reads at seeded positions of phage lambda and the E. coli slice, either strand (make_reads.py's way). */
function writeReads(path: string, reads: number): void {
  const genomes = [['lambda_virus', genome('lambda_virus.fa')], ['ecoli536_1-30000', genome('ecoli536_1-30000.fa')]] as const;
  let seed = 5;
  const rand = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const lines: string[] = [];
  for (let r = 1; r <= reads; r++) {
    const [name, bases] = genomes[r % 2];
    const start = Math.floor(rand() * (bases.length - 150));
    let read = bases.slice(start, start + 150);
    if (rand() < 0.5) read = [...read].reverse().map((b) => COMPLEMENT[b] ?? 'N').join('');
    lines.push(`>read${r}_${name}_${start}\n${read}\n`);
  }
  writeFileSync(path, lines.join(''));
}

/** One run of the host-pipeline bench's entry (its own process): frames and the process's peak RSS. */
function run(reads: string): { frames: number; maxRssMB: number } {
  const r = spawnSync(process.execPath, [join(tmp, 'bench', 'b', 'host-pipeline.mjs'), reads, join(tmp, 'out'), '2', join(testData, 'demo-models'), '300'], {
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(r.status, r.stderr).toBe(0);
  rmSync(join(tmp, 'out'), { recursive: true, force: true });
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

describe("predict's main process on simulated devices", () => {
  beforeAll(() => {
    execFileSync('bash', ['tools/bench/host-pipeline/bundle.sh'], { cwd: root, env: { ...process.env, OUT_DIR: join(tmp, 'bench') }, stdio: 'ignore' });
    writeReads(join(tmp, 'small.fa'), 16_000);
    writeReads(join(tmp, 'large.fa'), 128_000);
  }, 60_000);

  it('peaks at about the same RSS on 8× the frames', () => {
    const small = run(join(tmp, 'small.fa'));
    const large = run(join(tmp, 'large.fa'));
    expect(large.frames).toBeGreaterThan(7.5 * small.frames);
    expect(large.maxRssMB, `${small.frames} frames: ${small.maxRssMB} MB; ${large.frames} frames: ${large.maxRssMB} MB`).toBeLessThanOrEqual(1.4 * small.maxRssMB);
  }, 120_000);
});
