// `virnucpro predict --shard K/N` and `virnucpro merge` through the built CLI (issue 14): four shards merged
// equal one unsharded run byte for byte, and shard sets that do not cover one input exactly once are refused
// (exit 2, one line, nothing written).
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliAsync, testData } from './cli-harness.js';
import { writeMlpVariant } from './mlp-variants.js';
import { writeMultiRecordInput } from './multi-record-input.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-shard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const OUTPUTS = ['chunk_scores.tsv', 'prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'viral_regions.bed', 'viral_regions.tsv'];
const common = ['--models-dir', join(testData, 'demo-models'), '--backend', 'wasm', '--quiet'];
const input = join(tmp, 'input.fa');
const single = join(tmp, 'single');
const shardDir = (k: number) => join(tmp, `shard-${k}`);
const summary = (dir: string) => JSON.parse(readFileSync(join(dir, 'run_summary.json'), 'utf8'));

async function predict(out: string, ...extra: string[]) {
  const r = await runCliAsync(['predict', input, ...common, '--out-dir', out, ...extra]);
  expect(r.status, r.stderr).toBe(0);
}

function merge(dirs: string[], out: string) {
  const r = runCli(['merge', ...dirs, '--out-dir', out, '--quiet']);
  return { ...r, lines: r.stderr.trimEnd().split('\n') };
}

/** A refused merge: exit 2, one line on stderr matching `message`, no --out-dir created. */
function expectRefused(dirs: string[], message: RegExp) {
  const out = join(tmp, `refused-${Math.random().toString(36).slice(2)}`);
  const r = merge(dirs, out);
  expect(r.status, r.stderr).toBe(2);
  expect(r.lines).toHaveLength(1);
  expect(r.lines[0]).toMatch(message);
  expect(existsSync(out)).toBe(false);
}

/** What shard 2/4 printed: it runs without --quiet (the last line's test reads it). */
let shard2Stderr = '';
beforeAll(async () => {
  writeMultiRecordInput(input);
  await predict(single);
  for (let k = 1; k <= 4; k++) {
    const r = await runCliAsync(['predict', input, ...common.filter((a) => k !== 2 || a !== '--quiet'), '--out-dir', shardDir(k), '--shard', `${k}/4`]);
    expect(r.status, r.stderr).toBe(0);
    if (k === 2) shard2Stderr = r.stderr;
  }
}, 600_000);

describe('virnucpro predict --shard K/N', () => {
  it('splits on whole records, each record in exactly one shard, balanced by bases', () => {
    const whole = summary(single);
    const shards = [1, 2, 3, 4].map((k) => summary(shardDir(k)).shard);
    expect(shards.map((s) => [s.index, s.count])).toEqual([[1, 4], [2, 4], [3, 4], [4, 4]]);
    expect(new Set(shards.map((s) => s.inputFingerprint)).size).toBe(1);
    expect(shards[0].inputFingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(shards.every((s) => s.inputRecords === whole.sequences)).toBe(true);
    expect(shards.reduce((n, s) => n + s.records, 0)).toBe(whole.sequences);
    // Record numbers listed by the shards: every input record once.
    const listed = [1, 2, 3, 4].flatMap((k) => readFileSync(join(shardDir(k), 'shard_records.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => Number(l.split('\t')[0])));
    expect(listed.sort((a, b) => a - b)).toEqual(Array.from({ length: whole.sequences }, (_, i) => i + 1));
    // Longest record first to the lightest shard: no shard exceeds the average by more than the longest record.
    const bases = shards.map((s) => s.bases);
    const total = bases.reduce((a, b) => a + b, 0);
    expect(Math.max(...bases)).toBeLessThanOrEqual(total / 4 + 9000);
    expect(Math.min(...bases)).toBeGreaterThan(0);
    // The per-shard counters add up to the whole run's.
    for (const key of ['sequences', 'chunks', 'frames']) expect([1, 2, 3, 4].reduce((n, k) => n + summary(shardDir(k))[key], 0)).toBe(whole[key]);
  });

  it("says on its last line which shard it ran", () => {
    const records = summary(shardDir(2)).shard.records;
    expect(shard2Stderr.trimEnd().split('\n').at(-1)).toMatch(new RegExp(`^done: ${records} sequences, .*shard-2 \\(shard 2/4: ${records} of the input's 13 records; join the shards with virnucpro merge\\)$`));
  });

  it('refuses a malformed --shard (exit 2, one line)', () => {
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0']) {
      const r = runCli(['predict', input, ...common, '--out-dir', join(tmp, 'bad-shard'), '--shard', bad]);
      expect(r.status).toBe(2);
      expect(r.stderr).toBe(`virnucpro: --shard: expected K/N with 1 ≤ K ≤ N (e.g. 2/8: the second of eight parts), got '${bad}'\n`);
    }
  });

  it('refuses to resume a shard folder as another shard', () => {
    const out = join(tmp, 'resume-other');
    cpSync(shardDir(1), out, { recursive: true });
    const r = runCli(['predict', input, ...common, '--out-dir', out, '--shard', '2/4', '--resume']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('shard: 2/4 vs the checkpoint');
  });
});

describe('virnucpro merge', () => {
  it('4 shards (given in any order) → outputs byte-identical to one unsharded run, and a merged run summary', () => {
    const out = join(tmp, 'merged');
    const r = merge([shardDir(3), shardDir(1), shardDir(4), shardDir(2)], out);
    expect(r.status, r.stderr).toBe(0);
    for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(single, file))), file).toBe(true);
    expect(readdirSync(out).sort()).toEqual([...OUTPUTS, 'report.html', 'run_summary.json'].sort());
    const merged = summary(out);
    const whole = summary(single);
    for (const key of ['sequences', 'chunks', 'frames', 'chunkLength', 'backend', 'precision', 'demoModels']) expect(merged[key], key).toEqual(whole[key]);
    expect(merged.demoModels).toBe(true); // the demo models: report.html's warning banner for the merged run too
    expect(merged.tokens).toEqual(whole.tokens);
    expect(merged.merged.shards.map((s: { shard: string }) => s.shard)).toEqual(['1/4', '2/4', '3/4', '4/4']);
    expect(merged.merged.inputFingerprint).toBe(summary(shardDir(1)).shard.inputFingerprint);
  });

  it('more shards than records: the empty shards merge too', () => {
    const few = join(tmp, 'few.fa');
    writeFileSync(few, readFileSync(input, 'utf8').split('\n').slice(0, 4).join('\n') + '\n');
    const dirs = [1, 2, 3].map((k) => join(tmp, `few-${k}`));
    for (const [i, dir] of dirs.entries()) expect(runCli(['predict', few, ...common, '--out-dir', dir, '--shard', `${i + 1}/3`]).status).toBe(0);
    expect(runCli(['predict', few, ...common, '--out-dir', join(tmp, 'few-single')]).status).toBe(0);
    expect(dirs.map((d) => summary(d).shard.records).sort()).toEqual([0, 1, 1]);
    const r = merge(dirs, join(tmp, 'few-merged'));
    expect(r.status, r.stderr).toBe(0);
    for (const file of OUTPUTS) expect(readFileSync(join(tmp, 'few-merged', file)).equals(readFileSync(join(tmp, 'few-single', file))), file).toBe(true);
  });

  it('with viral regions in the output (an MLP with mixed calls): 3 shards merge into the unsharded files', async () => {
    const mlp = await writeMlpVariant(join(tmp, 'mixed.safetensors'), { virusLogitShift: 0.4 });
    const dirs = [1, 2, 3].map((k) => join(tmp, `mixed-${k}`));
    for (const [i, dir] of dirs.entries()) expect((await runCliAsync(['predict', input, ...common, '--mlp', mlp, '--out-dir', dir, '--shard', `${i + 1}/3`])).status).toBe(0);
    expect((await runCliAsync(['predict', input, ...common, '--mlp', mlp, '--out-dir', join(tmp, 'mixed-single')])).status).toBe(0);
    const regions = readFileSync(join(tmp, 'mixed-single', 'viral_regions.tsv'), 'utf8').trimEnd().split('\n').slice(1);
    expect(new Set(regions.map((l) => l.split('\t')[0])).size).toBeGreaterThan(1); // regions on several records
    const r = merge([dirs[2], dirs[0], dirs[1]], join(tmp, 'mixed-merged'));
    expect(r.status, r.stderr).toBe(0);
    for (const file of OUTPUTS) expect(readFileSync(join(tmp, 'mixed-merged', file)).equals(readFileSync(join(tmp, 'mixed-single', file))), file).toBe(true);
    expect(summary(join(tmp, 'mixed-merged')).regions).toEqual({ gap: 1, maxGapBases: 5000, minChunks: 2 });

    // Shards joined with other region options: refused, naming the option.
    const other = join(tmp, 'mixed-3-gap0');
    expect((await runCliAsync(['predict', input, ...common, '--mlp', mlp, '--region-gap', '0', '--out-dir', other, '--shard', '3/3'])).status).toBe(0);
    expectRefused([dirs[0], dirs[1], other], /^virnucpro: merge: shards made with different models or options: .*regions\.gap: /);
  }, 240_000);

  it('shards of an older version (no per-record files) merge into the older set; a mix of versions is refused', () => {
    const old = [1, 2, 3, 4].map((k) => {
      const dir = join(tmp, `old-${k}`);
      cpSync(shardDir(k), dir, { recursive: true });
      for (const file of ['chunk_scores.tsv', 'viral_regions.tsv', 'viral_regions.bed']) rmSync(join(dir, file));
      return dir;
    });
    const out = join(tmp, 'old-merged');
    const r = merge(old, out);
    expect(r.status).toBe(0);
    // the report needs chunk_scores.tsv: a warning saying so, the merged results complete all the same
    expect(r.stderr).toMatch(/^virnucpro: warning: report.html not written: .*old-merged has no chunk_scores.tsv: the run was made by an older virnucpro/m);
    expect(readdirSync(out).sort()).toEqual(['prediction_results.txt', 'prediction_results_highestscore.csv', 'run_summary.json', 'sequence_summary.tsv']);
    expectRefused([shardDir(1), shardDir(2), shardDir(3), old[3]], /^virnucpro: merge: .*old-4\/chunk_scores.tsv is missing, but other shards have chunk_scores.tsv/);
  });

  it('a missing shard: refused, nothing written', () => {
    expectRefused([shardDir(1), shardDir(2), shardDir(4)], /^virnucpro: merge: shard 3\/4 missing: give all 4 shard folders of the run$/);
  });

  it('a duplicate shard: refused, nothing written', () => {
    const copy = join(tmp, 'shard-2-copy');
    cpSync(shardDir(2), copy, { recursive: true });
    expectRefused([shardDir(1), shardDir(2), copy, shardDir(3), shardDir(4)], /^virnucpro: merge: shard 2\/4 given twice: .*shard-2 and .*shard-2-copy$/);
  });

  it('a shard of another input: refused, nothing written', () => {
    const other = join(tmp, 'other.fa');
    writeFileSync(other, readFileSync(input, 'utf8').replace('>rec1 ', '>recA '));
    const out = join(tmp, 'other-input-3');
    expect(runCli(['predict', other, ...common, '--out-dir', out, '--shard', '3/4']).status).toBe(0);
    expectRefused([shardDir(1), shardDir(2), out, shardDir(4)], /^virnucpro: merge: shards of different inputs: .*shard-1 \(shard 1\/4\) was made from sha256:[0-9a-f]+, .*other-input-3 \(shard 3\/4\) from sha256:[0-9a-f]+$/);
  });

  it('a shard of other models: refused naming what differs, nothing written', () => {
    const out = join(tmp, 'other-mlp-4');
    const mlp300 = join(testData, 'demo-models', 'mlp-demo-300.safetensors');
    expect(runCli(['predict', input, ...common, '--mlp', mlp300, '--out-dir', out, '--shard', '4/4']).status).toBe(0);
    expectRefused([shardDir(1), shardDir(2), shardDir(3), out], /^virnucpro: merge: shards made with different models or options: .*other-mlp-4 \(shard 4\/4\) vs .*shard-1 \(shard 1\/4\): models\.mlp\.name: /);
  });

  it('a shard of another split, an unfinished shard, a folder that is no shard: refused', () => {
    const three = join(tmp, 'split-3');
    expect(runCli(['predict', input, ...common, '--out-dir', three, '--shard', '1/3']).status).toBe(0);
    expectRefused([shardDir(1), three], /^virnucpro: merge: shards of different splits: .*shard-1 \(shard 1\/4\) and .*split-3 \(shard 1\/3\)$/);
    const unfinished = join(tmp, 'unfinished');
    cpSync(shardDir(2), unfinished, { recursive: true });
    rmSync(join(unfinished, 'run_summary.json'));
    expectRefused([shardDir(1), unfinished, shardDir(3), shardDir(4)], /^virnucpro: merge: .*unfinished is not a finished shard: it has no run_summary.json/);
    expectRefused([single, shardDir(2)], /^virnucpro: merge: .*single is not a shard: its run_summary.json has no shard section/);
  });

  it('a damaged shard file (a row lost) found while writing: refused, nothing written', () => {
    const damaged = join(tmp, 'shard-4-damaged');
    cpSync(shardDir(4), damaged, { recursive: true });
    const file = join(damaged, 'prediction_results.txt');
    const rows = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [...rows.slice(0, 2), ...rows.slice(3)].join('\n'));
    // Still looks finished: the loss shows only when the rows are placed, after the folder was created.
    expectRefused([shardDir(1), shardDir(2), shardDir(3), damaged], /^virnucpro: merge: .*shard-4-damaged\/prediction_results.txt: \d+ rows, but its run_summary.json counts \d+ frames$/);
  });

  it('refuses a non-empty --out-dir unless --force', () => {
    const out = join(tmp, 'occupied');
    cpSync(single, out, { recursive: true });
    const dirs = [1, 2, 3, 4].map(shardDir);
    const r = merge(dirs, out);
    expect(r.status).toBe(2);
    expect(r.lines).toEqual([`virnucpro: merge: --out-dir ${out} is not empty; use --force to overwrite the results in it`]);
    const forced = runCli(['merge', ...dirs, '--out-dir', out, '--force', '--quiet']);
    expect(forced.status, forced.stderr).toBe(0);
    for (const file of OUTPUTS) expect(readFileSync(join(out, file)).equals(readFileSync(join(single, file))), file).toBe(true);
  });
});
