// Rough edges of issue 29 through the built CLI: --out-dir under /proc (bounded in time), help texts, the done
// line's grammar, prep's output names for a gzip input, the progress ETA before there is a rate, FASTQ input.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { StageCounter } from '../src/progress/progress-reporter.js';
import { bin, runCli, runCliAsync, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'rough-edges-29-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const demo = join(testData, 'demo-models');
const small = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');

describe.runIf(existsSync('/proc/self'))('--out-dir under /proc', () => {
  // Node 20's recursive mkdir spun at 90% CPU forever there; now one line, exit 2, within seconds.
  it.each([
    ['prep', ['prep', small, '--out-dir', '/proc/x']],
    ['predict', ['predict', small, '--models-dir', demo, '--backend', 'cpu', '--quiet', '--out-dir', '/proc/x']],
  ])('%s: one line, exit 2, in bounded time', (_label, args) => {
    const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
    expect(r.error).toBeUndefined(); // not killed by the timeout
    expect(r.stderr.trim().split('\n')).toEqual(['virnucpro: --out-dir /proc/x: cannot create or write this folder: a folder on its path cannot be created (a read-only or vanished location?)']);
    expect(r.status).toBe(2);
  });
});

describe('help texts', () => {
  it('predict marks --out-dir required; merge shows no [default: []]; no internal stage numbers', () => {
    expect(runCli(['predict', '--help']).stdout).toMatch(/--out-dir[\s\S]*\[required: here or in --config\]/);
    expect(runCli(['merge', '--help']).stdout).not.toContain('[default: []]');
    for (const command of [[], ['classify'], ['prep']]) expect(runCli([...command, '--help']).stdout).not.toMatch(/stages? \d/);
  });
});

describe('grammar and progress', () => {
  it('predict on one record says "1 sequence"', () => {
    const input = join(tmp, 'one.fa');
    writeFileSync(input, readFileSync(small, 'utf8').split(/\n(?=>)/)[0] + '\n');
    const r = runCli(['predict', input, '--models-dir', demo, '--backend', 'cpu', '--out-dir', join(tmp, 'one-out')]);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/done: 1 sequence, \d+ chunks?, \d+ frames? in/);
  });

  it('the ETA is unknown until there is a rate', () => {
    let now = 0;
    const counter = new StageCounter('frames', 'frames', () => now, 100);
    now = 5000;
    expect(counter.eta).toBe('?');
    counter.done = 25;
    expect(counter.eta).toBe('15s');
  });
});

describe('prep of a gzip file', () => {
  it('names the outputs after the file the original would have read (NC_008253.fna.gz -> NC_008253.fna_…)', () => {
    const input = join(tmp, 'NC_008253.fna.gz');
    writeFileSync(input, gzipSync(readFileSync(small)));
    copyFileSync(small, join(tmp, 'NC_008253.fna'));
    const gz = runCli(['prep', input, '--out-dir', join(tmp, 'gz'), '--quiet']);
    expect(gz.status).toBe(0);
    const plain = runCli(['prep', join(tmp, 'NC_008253.fna'), '--out-dir', join(tmp, 'plain'), '--quiet']);
    expect(gz.stdout.replaceAll(join(tmp, 'gz'), 'D')).toBe(plain.stdout.replaceAll(join(tmp, 'plain'), 'D'));
    expect(existsSync(join(tmp, 'gz', 'NC_008253.fna_chunked500.fa'))).toBe(true);
  });
});

describe('one overwrite rule, short flags and token budget across commands', () => {
  const esm = join(testData, 'esm2-transformers5', 'masked-lm');

  it('prep refuses existing outputs unless --force / -f, with -o -l -q as predict takes them', () => {
    const out = join(tmp, 'prep-twice');
    expect(runCli(['prep', small, '-o', out, '-l', '500', '-q']).status).toBe(0);
    const again = runCli(['prep', small, '-o', out, '-l', '500', '-q']);
    expect(again.stderr.trim().split('\n')).toEqual([
      `virnucpro: ${join(out, 'test_fixed_500bp_chunked500.fa')} already exists (and 2 more outputs); pass --force to overwrite, or choose another --out-dir`,
    ]);
    expect(again.status).toBe(2);
    expect(runCli(['prep', small, '-o', out, '-q', '-f']).status).toBe(0);
  });

  it('embed refuses an existing --output unless --force, and takes its token budget from the backend as predict does', () => {
    const input = join(tmp, 'p.faa');
    writeFileSync(input, '>a\nMKTAYIAKQR\n');
    const output = join(tmp, 'p.safetensors');
    const summary = join(tmp, 'p.json');
    expect(runCli(['embed', 'esm2', '--model', esm, '--input', input, '-o', output, '--backend', 'cpu', '-q', '--summary', summary]).status).toBe(0);
    expect(JSON.parse(readFileSync(summary, 'utf8')).tokenBudget).toBe(4096); // predict's default off cuda
    const again = runCli(['embed', 'esm2', '--model', esm, '--input', input, '-o', output, '--backend', 'cpu', '-q']);
    expect(again.stderr.trim()).toBe(`virnucpro: --output ${output} already exists; pass --force to overwrite it`);
    expect(again.status).toBe(2);
    expect(runCli(['embed', 'esm2', '--model', esm, '--input', input, '-o', output, '--backend', 'cpu', '-q', '-f']).status).toBe(0);
  });

  it('every command with --quiet takes -q too', () => {
    for (const command of [['predict'], ['prep'], ['merge'], ['report'], ['classify'], ['models'], ['embed', 'esm2'], ['embed', 'dnabert']]) {
      const help = runCli([...command, '--help']).stdout;
      expect(help, command.join(' ')).toMatch(/-q, --quiet/);
    }
  });

  it('predict takes -o, -l, -q and -f', () => {
    const out = join(tmp, 'predict-short');
    const args = ['predict', small, '--models-dir', demo, '--backend', 'cpu', '-o', out, '-l', '500', '-q'];
    expect(runCli(args).status).toBe(0);
    expect(runCli(args).status).toBe(2); // non-empty --out-dir
    expect(runCli([...args, '-f']).status).toBe(0);
  });
});

describe('FASTQ is read as input; a folder is named as such', () => {
  const esm = join(testData, 'esm2-transformers5', 'masked-lm');
  const dnabert = join(testData, 'demo-models', 'dnabert-s-demo');
  // The e2e records as reads: FASTQ with CRLF and a repeated title on the '+' line, and the FASTA seqkit fq2fa makes of it.
  const records = readFileSync(small, 'utf8').trim().split(/\n(?=>)/).map((r) => {
    const [header, ...lines] = r.split('\n');
    return { title: header.slice(1), sequence: lines.join('') };
  });
  const fasta = join(tmp, 'reads.fa');
  const fastq = join(tmp, 'reads.fq');
  const fastqGz = join(tmp, 'reads.fq.gz');
  writeFileSync(fasta, records.map((r) => `>${r.title}\n${r.sequence}\n`).join(''));
  writeFileSync(fastq, records.map((r) => `@${r.title}\r\n${r.sequence}\r\n+${r.title}\r\n${'I'.repeat(r.sequence.length)}\r\n`).join(''));
  writeFileSync(fastqGz, gzipSync(readFileSync(fastq)));
  const same = (a: string, b: string) => readFileSync(a).equals(readFileSync(b));

  it('predict: FASTQ (plain and gzip) gives the bytes of the same reads as FASTA', async () => {
    const run = (input: string, out: string) => runCliAsync(['predict', input, '--models-dir', demo, '--backend', 'cpu', '-q', '-o', join(tmp, out)]);
    const results = await Promise.all([run(fasta, 'p-fa'), run(fastq, 'p-fq'), run(fastqGz, 'p-fqgz')]);
    for (const r of results) expect([r.status, r.stderr]).toEqual([0, '']);
    for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv']) {
      expect(same(join(tmp, 'p-fq', file), join(tmp, 'p-fa', file)), file).toBe(true);
      expect(same(join(tmp, 'p-fqgz', file), join(tmp, 'p-fa', file)), file).toBe(true);
    }
  });

  it('prep and embed dnabert: FASTQ gives the bytes of the same reads as FASTA', () => {
    for (const [input, out] of [[fasta, 'e-fa'], [fastqGz, 'e-fqgz']]) {
      expect(runCli(['prep', input, '-q', '-o', join(tmp, out)]).status).toBe(0);
      const r = runCli(['embed', 'dnabert', '--model', dnabert, '--input', input, '-o', join(tmp, `${out}.safetensors`), '--backend', 'cpu', '-q']);
      expect([r.status, r.stderr]).toEqual([0, '']);
    }
    for (const [fa, fq] of [['reads_chunked500.fa', 'reads.fq_chunked500.fa'], ['reads_identified_protein.faa', 'reads.fq_identified_protein.faa']]) {
      expect(same(join(tmp, 'e-fqgz', fq), join(tmp, 'e-fa', fa)), fa).toBe(true);
    }
    expect(same(join(tmp, 'e-fqgz.safetensors'), join(tmp, 'e-fa.safetensors'))).toBe(true);
  });

  const commands: [string, (input: string) => string[]][] = [
    ['predict', (input) => ['predict', input, '--models-dir', demo, '--backend', 'cpu', '-q', '-o', join(tmp, 'fq-out')]],
    ['prep', (input) => ['prep', input, '-q', '-o', join(tmp, 'fq-prep')]],
    ['embed', (input) => ['embed', 'esm2', '--model', esm, '--input', input, '-o', join(tmp, 'fq.safetensors'), '-q']],
  ];

  it.each(commands)('%s: a malformed FASTQ record and a folder, one line each naming file and line, exit 2', (_label, args) => {
    const bad = join(tmp, 'bad.fq.gz');
    writeFileSync(bad, gzipSync('@r1\nACGTACGT\n+\nIIIIIIII\n@r2\nACGT\n+\nIII\n'));
    const r = runCli(args(bad));
    expect(r.stderr.trim().split('\n')).toEqual([`virnucpro: ${bad}: line 8: record 'r2': 3 quality characters for 4 bases (expected one per base; FASTQ records are 4 lines: '@' header, sequence, '+', qualities)`]);
    expect(r.status).toBe(2);
    const folder = join(tmp, 'a-folder');
    spawnSync('mkdir', ['-p', folder]);
    const f = runCli(args(folder));
    expect(f.stderr.trim().split('\n')).toEqual([expect.stringMatching(/a-folder: is a folder, not a FASTA file$/)]);
    expect(f.status).toBe(2);
  });
});

describe('records that are tiny or mostly N', () => {
  // A normal record, one 6 bp long, one 60% N (over the documented 50%), one exactly half N (not "mostly").
  const [normal] = readFileSync(small, 'utf8').trim().split(/\n(?=>)/).map((r) => r.split('\n').slice(1).join(''));
  const input = join(tmp, 'mixed.fa');
  writeFileSync(input, `>normal\n${normal}\n>tiny\nACGTAC\n>gappy\n${normal.slice(0, 200)}${'N'.repeat(300)}\n>half\n${normal.slice(0, 250)}${'n'.repeat(250)}\n`);
  const rows = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8').trimEnd().split('\n');
  const ids = (dir: string, file: string) => new Set(rows(dir, file).slice(1).map((l) => l.split('\t')[0].replace(/_chunk_.*/, '')));
  const base = join(tmp, 'mixed-default');
  const skipping = join(tmp, 'mixed-min-length');
  const args = (out: string) => ['predict', input, '--models-dir', demo, '--backend', 'cpu', '-o', out];

  it('by default: every record scored as the original would, one warning line for the mostly-N record, fraction_n in the summary', () => {
    const r = runCli(args(base));
    expect(r.status).toBe(0);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('mostly N'));
    expect(warnings).toEqual(["virnucpro: warning: 1 record is mostly N (over 50% of the bases: 'gappy' 60%); their calls rest on few real bases (see fraction_n in sequence_summary.tsv)"]);
    // No skip note without --min-length; the 6 bp record is scored, with a warning that suggests it (issue 48).
    expect(r.stderr).not.toMatch(/shorter than --min-length/);
    expect(r.stderr.split('\n').filter((l) => l.includes('shorter than'))).toEqual([expect.stringMatching(/^virnucpro: warning: 1 record is shorter than \d+ bases \('tiny' 6 bp\); /)]);
    const summary = rows(base, 'sequence_summary.tsv');
    expect(summary[0].split('\t').at(-1)).toBe('fraction_n');
    expect(summary.slice(1).map((l) => [l.split('\t')[0], l.split('\t')[9], l.split('\t')[10]])).toEqual([
      ['normal', expect.stringMatching(/^(virus|others|unscored)$/), '0.0000'],
      ['tiny', expect.stringMatching(/^(virus|others|unscored)$/), '0.0000'],
      ['gappy', expect.stringMatching(/^(virus|others|unscored)$/), '0.6000'],
      ['half', expect.stringMatching(/^(virus|others|unscored)$/), '0.5000'],
    ]);
    expect(ids(base, 'chunk_scores.tsv')).toEqual(new Set(['normal', 'tiny', 'gappy', 'half']));
  });

  it('--min-length 100: the 6-bp record is skipped (one note line, call skipped, no other rows); the rest is unchanged', () => {
    const r = runCli([...args(skipping), '--min-length', '100']);
    expect(r.status).toBe(0);
    expect(r.stderr.split('\n').filter((l) => l.startsWith('virnucpro: note: 1 record'))).toEqual([
      "virnucpro: note: 1 record shorter than --min-length 100 skipped (call 'skipped' in sequence_summary.tsv, no other rows)",
    ]);
    const summary = rows(skipping, 'sequence_summary.tsv');
    expect(summary[2]).toBe('tiny\t6\t0\t0\t0\t\t0\t0\t\tskipped\t0.0000');
    expect(summary.filter((l) => !l.startsWith('tiny\t'))).toEqual(rows(base, 'sequence_summary.tsv').filter((l) => !l.startsWith('tiny\t')));
    for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv', 'chunk_scores.tsv']) {
      expect(ids(skipping, file).has('tiny'), file).toBe(false);
      expect(rows(skipping, file), file).toEqual(rows(base, file).filter((l) => !l.startsWith('tiny_') && !l.startsWith('tiny\t')));
    }
    const run = JSON.parse(readFileSync(join(skipping, 'run_summary.json'), 'utf8'));
    expect([run.minLength, run.skippedSequences, run.sequences]).toEqual([100, 1, 4]);
    expect(JSON.parse(readFileSync(join(base, 'run_summary.json'), 'utf8'))).not.toHaveProperty('minLength');
  });

  it('--min-length in shards: merged, the bytes of one run (a skipped record keeps its summary row in its shard)', async () => {
    const shard = (k: number) => runCliAsync([...args(join(tmp, `mixed-shard-${k}`)), '--min-length', '100', '-q', '--shard', `${k}/2`]);
    for (const r of await Promise.all([shard(1), shard(2)])) expect([r.status, r.stderr]).toEqual([0, '']);
    const merged = join(tmp, 'mixed-merged');
    const r = runCli(['merge', join(tmp, 'mixed-shard-1'), join(tmp, 'mixed-shard-2'), '-o', merged, '-q']);
    expect([r.status, r.stderr]).toEqual([0, '']);
    for (const file of ['prediction_results.txt', 'prediction_results_highestscore.csv', 'sequence_summary.tsv', 'chunk_scores.tsv', 'viral_regions.tsv']) {
      expect(readFileSync(join(merged, file)).equals(readFileSync(join(skipping, file))), file).toBe(true);
    }
    expect(JSON.parse(readFileSync(join(merged, 'run_summary.json'), 'utf8'))).toMatchObject({ minLength: 100, skippedSequences: 1 });
  });

  it('prep --min-length skips the same record; a bad value is one line, exit 2', () => {
    const r = runCli(['prep', input, '-o', join(tmp, 'mixed-prep'), '--min-length', '100']);
    expect(r.status).toBe(0);
    expect(r.stderr).toMatch(/; 1 record shorter than --min-length 100 skipped\n$/);
    expect(readFileSync(join(tmp, 'mixed-prep', 'mixed_chunked500.fa'), 'utf8')).not.toContain('>tiny');
    const bad = runCli(['prep', input, '-o', join(tmp, 'mixed-prep-bad'), '--min-length', '0']);
    expect([bad.status, bad.stderr]).toEqual([2, 'virnucpro: --min-length: expected a whole number of at least 1, got "0"\n']);
  });
});

describe('a bad number', () => {
  // The option is a [number] in --help as in embed (issue 48), so yargs hands over NaN, not the word typed.
  it('is named as no number (not "got null")', () => {
    const r = runCli(['predict', small, '--models-dir', demo, '-o', join(tmp, 'nan-out'), '--token-budget', 'abc']);
    expect(r.stderr.trim().split('\n')).toEqual(['virnucpro: --token-budget: expected a whole number, got a value that is not a number']);
    expect(r.status).toBe(2);
  });
});
