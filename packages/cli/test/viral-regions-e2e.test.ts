// Issue 30's acceptance on real genomes (phage lambda; the first 30 kb of E. coli 536), through the built CLI:
// chunk_scores.tsv, viral_regions.tsv/.bed and sequence_summary.tsv equal an independent re-computation from
// the original's two files (prediction_results.txt, prediction_results_highestscore.csv) and the chunk layout
// as virnucpro-reference.md §1.1 states it — nothing here calls the code under test except through the CLI.
// The MLPs are the demo MLP with its virus logit shifted (a mix of calls on lambda) or made to call everything
// virus (test/mlp-variants.ts).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';
import { writeMlpVariant } from './mlp-variants.js';

const tmp = mkdtempSync(join(tmpdir(), 'viral-regions-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const LAMBDA = join(testData, 'lambda_virus.fa');
const ECOLI = join(testData, 'ecoli536_1-30000.fa');

/** split_fasta_chunk's arithmetic, transcribed from the reference (Python → TS): [start, end) per chunk. */
function referenceLayout(L: number, C: number): [number, number][] {
  const n = Math.ceil(L / C);
  const R = n * C - L;
  const q = Math.trunc(R / n);
  const u = R - q * (n - 1);
  const b = [...Array<number>(Math.max(0, u)).fill(q + 1), ...Array<number>(Math.max(0, n - 1 - u)).fill(q), 0];
  const out: [number, number][] = [];
  let move = 0;
  for (let k = 0, a = 0; k < n; k++, a += C) {
    const start = a <= 1 ? a : a - move;
    out.push([start, Math.min(start + C, L)]);
    move += b[k];
  }
  return out;
}

const rows = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').slice(1).map((l) => l.split('\t'));
const fastaSequence = (path: string) => readFileSync(path, 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
const fastaLength = (path: string) => fastaSequence(path).length;
const fastaId = (path: string) => readFileSync(path, 'utf8').split('\n')[0].slice(1).split(/\s/)[0];

interface Expected {
  chunks: { id: string; start: number; end: number; frames: number; best: string; frame: string; call: string }[];
  regions: number[][];
  regionScores: [number, number][];
}

/** Chunk calls from the original's two files, then the region rule of docs/usage.md applied plainly. */
function recompute(out: string, id: string, length: number, C: number, gap: number, maxGap: number, minChunks: number): Expected {
  const consensus = new Map(rows(join(out, 'prediction_results_highestscore.csv')).map(([key, flag]) => [key, flag]));
  const frames = new Map<string, { n: number; best: string; frame: string }>();
  for (const [frameId, , , s2] of rows(join(out, 'prediction_results.txt'))) {
    const key = frameId.slice(0, -2);
    const f = frames.get(key) ?? { n: 0, best: '', frame: '' };
    f.n++;
    if (f.best === '' || Number(s2) > Number(f.best)) Object.assign(f, { best: s2, frame: frameId.slice(-2) });
    frames.set(key, f);
  }
  const chunks = referenceLayout(length, C).map(([s, e], k) => {
    const key = `${id}_chunk_${k + 1}`;
    const flag = consensus.get(key);
    const f = frames.get(key);
    return { id: key, start: s + 1, end: e, frames: f?.n ?? 0, best: f?.best ?? '', frame: f?.frame ?? '', call: flag === undefined ? 'unscored' : flag === 'True' ? 'virus' : 'others' };
  });
  // Cut the list of viral chunks where neighbours are too far apart; keep the pieces with enough viral chunks.
  const viral = chunks.flatMap((c, i) => (c.call === 'virus' ? [i] : []));
  const pieces: number[][] = [];
  viral.forEach((v, n) => {
    const p = viral[n - 1];
    const far = p === undefined || chunks.slice(p + 1, v).filter((c) => c.call === 'others').length > gap || chunks[v].start - chunks[p].end - 1 > maxGap;
    if (far) pieces.push([v]);
    else pieces.at(-1)!.push(v);
  });
  const kept = pieces.filter((p) => p.length >= (chunks.length === 1 ? 1 : minChunks));
  const regions = kept.map((p) => {
    const inside = chunks.slice(p[0], p.at(-1)! + 1);
    const count = (call: string) => inside.filter((c) => c.call === call).length;
    const start = chunks[p[0]].start;
    const end = chunks[p.at(-1)!].end;
    return [start, end, end - start + 1, inside.length, count('virus'), count('others'), count('unscored')];
  });
  const regionScores = kept.map((p): [number, number] => {
    const scores = chunks.slice(p[0], p.at(-1)! + 1).filter((c) => c.call !== 'unscored').map((c) => Number(c.best));
    return [scores.reduce((a, b) => a + b, 0) / scores.length, Math.max(...scores)];
  });
  return { chunks, regions, regionScores };
}

function predict(name: string, input: string, mlp: string, length: 300 | 500, ...extra: string[]): string {
  const out = join(tmp, name);
  const r = runCli(['predict', input, '--models-dir', join(testData, 'demo-models'), '--model-type', String(length), '--mlp', mlp, '--backend', 'wasm', '--out-dir', out, '--quiet', ...extra]);
  expect(r.status, r.stderr).toBe(0);
  return out;
}

const mlps: Record<string, string> = {};
beforeAll(async () => {
  for (const length of [300, 500] as const) {
    mlps[`mixed${length}`] = await writeMlpVariant(join(tmp, `mixed${length}.safetensors`), { length, virusLogitShift: length === 500 ? 0.4 : -0.5 });
    mlps[`virus${length}`] = await writeMlpVariant(join(tmp, `virus${length}.safetensors`), { length, allVirus: true });
  }
});

describe.each([
  { name: 'lambda 500', input: LAMBDA, length: 500 as const, options: [] as string[], gap: 1, maxGap: 5000, min: 2 },
  { name: 'lambda 300', input: LAMBDA, length: 300 as const, options: [], gap: 1, maxGap: 5000, min: 2 },
  { name: 'lambda 500, --region-gap 0 --region-max-gap 600 --min-region-chunks 1', input: LAMBDA, length: 500 as const, options: ['--region-gap', '0', '--region-max-gap', '600', '--min-region-chunks', '1'], gap: 0, maxGap: 600, min: 1 },
  { name: 'E. coli 536, first 30 kb, 500', input: ECOLI, length: 500 as const, options: [], gap: 1, maxGap: 5000, min: 2 },
])('$name: the per-record files equal a re-computation from the original two files', ({ name, input, length, options, gap, maxGap, min }) => {
  let out = '';
  let expected: Expected;
  const id = fastaId(input);
  const bases = fastaLength(input);
  beforeAll(() => {
    out = predict(name.replace(/\W+/g, '-'), input, mlps[`mixed${length}`], length, ...options);
    expected = recompute(out, id, bases, length, gap, maxGap, min);
  }, 120_000);

  it('chunk_scores.tsv: every chunk of the layout, with its frames, best score and call', () => {
    const got = rows(join(out, 'chunk_scores.tsv'));
    expect(got.map((r) => r[0])).toEqual(expected.chunks.map(() => id));
    expect(got.map(([, chunk, s, e, n, best, frame, call]) => ({ id: chunk, start: Number(s), end: Number(e), frames: Number(n), best, frame, call }))).toEqual(expected.chunks);
    // the run is a real mix, not all one call
    expect(new Set(expected.chunks.map((c) => c.call))).toEqual(new Set(['virus', 'others', 'unscored']));
  });

  it('viral_regions.tsv and .bed: the regions of the rule', () => {
    const got = rows(join(out, 'viral_regions.tsv'));
    expect(expected.regions.length).toBeGreaterThan(0);
    expect(got.map((r) => [r[0], ...r.slice(1, 8).map(Number)])).toEqual(expected.regions.map((r) => [id, ...r]));
    got.forEach((r, i) => {
      expect(Number(r[8])).toBeCloseTo(expected.regionScores[i][0], 6);
      expect(Number(r[9])).toBe(expected.regionScores[i][1]);
      expect(Number(r[10])).toBeCloseTo(expected.regions[i][2] / bases, 4);
    });
    const bed = readFileSync(join(out, 'viral_regions.bed'), 'utf8').trimEnd().split('\n').map((l) => l.split('\t'));
    expect(bed.map((b) => [b[0], Number(b[1]), Number(b[2]), b[3], Number(b[4]), b[5]])).toEqual(
      expected.regions.map((r, i) => [id, r[0] - 1, r[1], `${id}_region_${i + 1}`, Math.round(1000 * expected.regionScores[i][0]), '.']),
    );
  });

  it('sequence_summary.tsv counts evidence: scored chunks, the fraction over them, regions and viral bases', () => {
    const [row] = rows(join(out, 'sequence_summary.tsv'));
    const scored = expected.chunks.filter((c) => c.call !== 'unscored').length;
    const viral = expected.chunks.filter((c) => c.call === 'virus').length;
    const covered = new Set<number>();
    for (const r of expected.regions) for (let b = r[0]; b <= r[1]; b++) covered.add(b);
    expect(row).toEqual([
      id, String(bases), String(expected.chunks.length), String(scored), String(viral), (viral / scored).toFixed(4),
      String(expected.regions.length), String(covered.size), row[8], 2 * viral >= scored ? 'virus' : 'others',
      (fastaSequence(input).replace(/[^Nn]/g, '').length / bases).toFixed(4),
    ]);
    expect(Number(row[8])).toBe(Math.max(...expected.chunks.filter((c) => c.best).map((c) => Number(c.best))));
  });
});

describe('phage lambda with an MLP that scores every frame as virus', () => {
  it.each([
    // (chunks with a stop-free frame, chunks): as issue 30 counted them
    [500, 36, 98],
    [300, 99, 162],
  ] as const)('is `virus` at %i bp (%i of %i chunks scored, every one viral), one region over the scored span', (length, scored, chunks) => {
    const out = predict(`all-virus-${length}`, LAMBDA, mlps[`virus${length}`], length);
    const [row] = rows(join(out, 'sequence_summary.tsv'));
    expect(row.slice(0, 6)).toEqual([fastaId(LAMBDA), '48502', String(chunks), String(scored), String(scored), '1.0000']);
    expect(row[9]).toBe('virus');
    const expected = recompute(out, fastaId(LAMBDA), 48502, length, 1, 5000, 2);
    expect(rows(join(out, 'viral_regions.tsv')).map((r) => r.slice(1, 8).map(Number))).toEqual(expected.regions);
  }, 120_000);
});
