// `predict --save-embeddings` and `classify --features <that folder>` through the built launcher (cpu backend, demo
// models): the prediction files are the same with the option as without it; classify on the saved fp32 features
// writes predict's three files byte for byte (records skipped by --min-length, a record without a stop-free frame,
// ids holding `_chunk_`, N bases, several shards); fp16 features give close scores; a run killed mid-way and
// resumed leaves the same embeddings as an undisturbed one, and nothing half-written in between.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSafetensors } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runCliAsync, runNodeAsync, testData, childExit, untilWhileRunning } from './cli-harness.js';
import { writeMlpVariant } from './mlp-variants.js';
import { writeMultiRecordInput } from './multi-record-input.js';

const tmp = mkdtempSync(join(tmpdir(), 'save-embeddings-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const input = join(tmp, 'records.fa');
const mlp = join(tmp, 'mixed.safetensors');
const OUTPUTS = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed'];
const CLASSIFIED = ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv'];
// Shards of 16 frames, so the ~100 frames of the input span several.
const env = { ...process.env, VIRNUCPRO_EMBEDDINGS_SHARD_ROWS: '16' };
const predictArgs = (out: string, ...extra: string[]) => [
  bin, 'predict', input, '--models-dir', join(testData, 'demo-models'), '--mlp', mlp, '--length', '300', '--backend', 'cpu', '--token-budget', '512',
  '--min-length', '300', '--out-dir', out, ...extra,
];
const predict = (out: string, ...extra: string[]) => runNodeAsync(predictArgs(out, ...extra), { env });
const classify = (features: string, out: string) => runCliAsync(['classify', '--mlp', mlp, '--features', features, '-o', out]);
const read = (dir: string, file: string) => readFileSync(join(dir, file));
const embeddingFiles = (out: string) => readdirSync(join(out, 'embeddings')).sort();

const reference = join(tmp, 'reference');
const saved = join(tmp, 'saved');
beforeAll(async () => {
  writeMultiRecordInput(input);
  appendFileSync(input, `>mostly_n\n${'N'.repeat(400)}${'ATGAAACCCGGGTTTAAAGCA'.repeat(20)}\n`); // fraction_n
  await writeMlpVariant(mlp, { length: 300, virusLogitShift: 0.4 });
  const [off, on] = await Promise.all([predict(reference, '--quiet'), predict(saved, '--save-embeddings')]);
  expect(off.status, off.stderr).toBe(0);
  expect(on.status, on.stderr).toBe(0);
});

describe('virnucpro predict --save-embeddings', () => {
  it('writes the same prediction files as without it, and the features in shards under --out-dir/embeddings', async () => {
    for (const file of OUTPUTS) expect(read(saved, file).equals(read(reference, file)), file).toBe(true);
    expect(existsSync(join(reference, 'embeddings'))).toBe(false);
    const summary = JSON.parse(read(saved, 'run_summary.json').toString());
    const index = JSON.parse(read(join(saved, 'embeddings'), 'index.json').toString());
    expect(index).toMatchObject({ dtype: 'float32', chunkLength: 300, dim: 64, dnabertDim: 32, frames: summary.frames, records: 14, precision: 'fp32' });
    expect(index.shards.length).toBe(Math.ceil(summary.frames / 16));
    expect(summary.embeddings).toEqual({ folder: 'embeddings', dtype: 'fp32', frames: summary.frames, shards: index.shards.length });
    expect(embeddingFiles(saved)).toEqual([...index.shards.map((s: { file: string }) => s.file), 'index.json', 'records.tsv']);
    const shard = await openSafetensors(join(saved, 'embeddings', index.shards[0].file));
    expect(JSON.parse(shard.metadata.ids).slice(0, 2)).toEqual(read(saved, 'prediction_results.txt').toString().split('\n').slice(1, 3).map((l) => l.split('\t')[0]));
    await shard.close();
    // The skipped records (--min-length 300: 120 and 260 bases) are in records.tsv; a complete run keeps no checkpoint shard.
    expect(read(join(saved, 'embeddings'), 'records.tsv').toString()).toMatch(/\nrec4\t120\t0\tskipped\n[^]*\nrec12\t260\t0\tskipped\n/);
    expect(readdirSync(join(saved, '.checkpoints'))).toEqual(['manifest.json']);
  });

  it('classify --features on the folder writes predict\'s three files byte for byte', async () => {
    const out = join(tmp, 'classified');
    const r = await classify(join(saved, 'embeddings'), out);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^classified \d+ frames in \d+ chunks/);
    for (const file of CLASSIFIED) expect(read(out, file).toString(), file).toBe(read(reference, file).toString());
    expect(read(reference, 'sequence_summary.tsv').toString()).toMatch(/\nmostly_n\t820\t.*\t0\.4878\n/); // fraction_n carried over
    // Its index.json names the folder too.
    const again = join(tmp, 'classified-by-index');
    expect((await classify(join(saved, 'embeddings', 'index.json'), again)).status).toBe(0);
    for (const file of CLASSIFIED) expect(read(again, file).equals(read(reference, file)), file).toBe(true);
  });

  it('--embeddings-dtype fp16: float16 shards of half the size; classify gives close scores', async () => {
    const out = join(tmp, 'fp16');
    const r = await predict(out, '--save-embeddings', '--embeddings-dtype', 'fp16', '--quiet');
    expect(r.status, r.stderr).toBe(0);
    for (const file of OUTPUTS) expect(read(out, file).equals(read(reference, file)), file).toBe(true); // predict's own files: unchanged
    const index = JSON.parse(read(join(out, 'embeddings'), 'index.json').toString());
    expect(index.dtype).toBe('float16');
    const first = (dir: string) => readFileSync(join(dir, 'embeddings', index.shards[0].file)).length;
    expect(first(out)).toBeLessThan(0.6 * first(saved));
    const classified = join(tmp, 'fp16-classified');
    expect((await classify(join(out, 'embeddings'), classified)).status).toBe(0);
    const rows = (dir: string) => read(dir, 'prediction_results.txt').toString().trim().split('\n').slice(1).map((l) => l.split('\t'));
    const want = rows(reference);
    const got = rows(classified);
    expect(got.map((row) => row[0])).toEqual(want.map((row) => row[0]));
    const largest = Math.max(...got.map((row, i) => Math.abs(Number(row[3]) - Number(want[i][3]))));
    expect(largest).toBeLessThan(1e-3);
  });

  it('with two worker processes and another token budget: the same embeddings, byte for byte (a frame\'s features are its own)', async () => {
    const out = join(tmp, 'workers');
    const r = await runNodeAsync([...predictArgs(out, '--save-embeddings', '--workers', '2', '--quiet')].map((a) => (a === '512' ? '2048' : a)), { env });
    expect(r.status, r.stderr).toBe(0);
    expect(embeddingFiles(out)).toEqual(embeddingFiles(saved));
    for (const file of embeddingFiles(saved)) expect(read(join(out, 'embeddings'), file).equals(read(join(saved, 'embeddings'), file)), file).toBe(true);
  });

  it('killed mid-run then --resume: the same embeddings as an undisturbed run, no temporary file left', async () => {
    const out = join(tmp, 'killed');
    const child = spawn(process.execPath, predictArgs(out, '--save-embeddings', '--checkpoint-every', '4', '--quiet'), { env, detached: true, stdio: 'ignore' });
    const done = childExit(child);
    await untilWhileRunning(() => existsSync(join(out, '.checkpoints')) && readdirSync(join(out, '.checkpoints')).filter((f) => f.startsWith('shard-')).length >= 3, 'three checkpoint shards', child);
    process.kill(-child.pid!, 'SIGKILL');
    await done;
    expect(existsSync(join(out, 'embeddings', 'index.json'))).toBe(false); // nothing published: at most temporary files

    // Resuming without the option is refused (the checkpoint holds the features too), touching nothing.
    const without = await predict(out, '--resume');
    expect(without.status).toBe(2);
    expect(without.stderr).toContain("  embeddings: (none) vs the checkpoint's kept (--save-embeddings)");

    const resumed = await predict(out, '--save-embeddings', '--resume');
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/resuming: \d+ frames restored/);
    expect(embeddingFiles(out)).toEqual(embeddingFiles(saved)); // no .tmp of the killed run either
    for (const file of embeddingFiles(saved)) expect(read(join(out, 'embeddings'), file).equals(read(join(saved, 'embeddings'), file)), file).toBe(true);
    for (const file of OUTPUTS) expect(read(out, file).equals(read(reference, file)), file).toBe(true);
  });

  it('refuses --embeddings-dtype without --save-embeddings, and classify on a folder that is no saved set (exit 2, one line)', async () => {
    const r = await predict(join(tmp, 'refused'), '--embeddings-dtype', 'fp16');
    expect(r.status).toBe(2);
    expect(r.stderr).toBe('virnucpro: --embeddings-dtype fp16 needs --save-embeddings (without it no embeddings are written)\n');
    expect(existsSync(join(tmp, 'refused'))).toBe(false);
    const c = await classify(reference, join(tmp, 'not-classified'));
    expect(c.status).toBe(2);
    expect(c.stderr).toBe(`virnucpro: cannot use --features ${reference}: ${reference}: no index.json (not a folder of saved embeddings, or one of a run that did not finish)\n`);
  });
});

