// `virnucpro predict` on thousands of short records, a third of them without a stop-free frame: the shape of a
// reads file. The per-record collector compacts its queue after 1,024 records; on the GPU machine 100,000 frames
// of reads crashed there ("reading 'calls'" of undefined) while every fixture, of a few records, passed.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliAsync, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-many-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const READS = 6000;
const OUTPUTS = ['chunk_scores.tsv', 'prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'viral_regions.tsv'];

/** 150-bp reads from phage lambda at seeded positions; every third read is TTAA repeats (a stop in each of its six frames: no frame): the compaction then falls on passing over one. */
function writeReads(path: string): void {
  const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let text = '';
  for (let i = 0; i < READS; i++) {
    const at = Math.floor(next() * (genome.length - 150));
    text += `>read${i}\n${i % 3 === 1 ? 'TTAA'.repeat(38).slice(0, 150) : genome.slice(at, at + 150)}\n`;
  }
  writeFileSync(path, text);
}

describe('predict on a reads-like input of 6,000 records', () => {
  it('completes, scores every record, and gives the same bytes at another token budget', async () => {
    const input = join(tmp, 'reads.fa');
    writeReads(input);
    const run = async (out: string, ...extra: string[]) => {
      const r = await runCliAsync(['predict', input, '--models-dir', join(testData, 'demo-models'), '--model-type', '300', '--quiet', '--out-dir', out, ...extra]);
      expect(r.status, r.stderr).toBe(0);
    };
    // A small packing window keeps few records declared ahead of the one being scored, so the queue compacts
    // every ~1,024 records, mostly while passing over frameless ones.
    await run(join(tmp, 'a'), '--pack-window', '64');
    await run(join(tmp, 'b'), '--token-budget', '300');
    const summaryRows = readFileSync(join(tmp, 'a', 'sequence_summary.tsv'), 'utf8').trimEnd().split('\n').slice(1);
    expect(summaryRows).toHaveLength(READS);
    expect(summaryRows.map((row) => row.split('\t')[0])).toEqual(Array.from({ length: READS }, (_, i) => `read${i}`));
    const frames = JSON.parse(readFileSync(join(tmp, 'a', 'run_summary.json'), 'utf8')).frames;
    expect(frames).toBeGreaterThan((READS * 2) / 3);
    for (const name of OUTPUTS) expect(readFileSync(join(tmp, 'b', name), 'utf8'), name).toBe(readFileSync(join(tmp, 'a', name), 'utf8'));
  }, 300_000);
});
