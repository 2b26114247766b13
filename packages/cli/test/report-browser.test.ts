// report.html as a person opens it (issue 30): headless Chromium (Debian's `chromium` package; the test is skipped,
// saying so, where none is installed) loads the file from disk with no network; the page must log nothing to the
// console, raise no error (the page keeps errors on <body data-errors>), and show the counts that the TSVs beside
// it hold (counted here from the files). On the demo run (predict writes the report) and on 100,000 frames (a
// synthetic run, `virnucpro report`). `virnucpro report` on an older run folder: a clear one-line refusal.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';
import { writeMlpVariant } from './mlp-variants.js';

const tmp = mkdtempSync(join(tmpdir(), 'report-browser-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', process.env.VIRNUCPRO_CHROMIUM ?? ''].find((p) => p && existsSync(p));
if (!chromium) console.warn('report-browser.test: no Chromium (apt-get install chromium): the browser checks are skipped');
// The synthetic-run tool is run as a process, as its header shows (a package imports nothing from tools/).
const syntheticRun = fileURLToPath(new URL('../../../tools/bench/report/synthetic-run.mjs', import.meta.url));

/** The page's DOM after load, and Chromium's log lines of the page's console. */
function open(html: string): { dom: string; console: string[] } {
  const r = spawnSync(chromium!, ['--headless', '--no-sandbox', '--disable-gpu', '--enable-logging=stderr', '--v=0', '--dump-dom', pathToFileURL(html).href], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return { dom: r.stdout, console: r.stderr.split('\n').filter((l) => l.includes(':CONSOLE')) };
}

const rows = (path: string) => readFileSync(path, 'utf8').trimEnd().split('\n').slice(1).map((l) => l.split('\t'));

/** The counts the page must show, from the TSVs. */
function countsFromFiles(dir: string): Record<string, number> {
  const summary = rows(join(dir, 'sequence_summary.tsv'));
  const chunks = rows(join(dir, 'chunk_scores.tsv'));
  const by = (list: string[][], col: number, value: string) => list.filter((r) => r[col] === value).length;
  return {
    records: summary.length,
    'recordCalls.virus': by(summary, 9, 'virus'), 'recordCalls.others': by(summary, 9, 'others'), 'recordCalls.unscored': by(summary, 9, 'unscored'),
    chunks: chunks.length,
    'chunkCalls.virus': by(chunks, 7, 'virus'), 'chunkCalls.others': by(chunks, 7, 'others'), 'chunkCalls.unscored': by(chunks, 7, 'unscored'),
    regions: rows(join(dir, 'viral_regions.tsv')).length,
    viralBases: summary.reduce((n, r) => n + Number(r[7]), 0),
  };
}

function countsOnPage(dom: string): Record<string, number> {
  return Object.fromEntries([...dom.matchAll(/data-count="([^"]+)">([^<]*)</g)].map(([, key, text]) => [key, Number(text.replace(/,/g, ''))]));
}

function expectOpensCleanly(dir: string): string {
  const { dom, console } = open(join(dir, 'report.html'));
  expect(console).toEqual([]);
  expect(dom).not.toContain('data-errors=');
  expect(dom).toMatch(/data-rendered-ms="\d+"/); // the page's script ran to its end
  expect(countsOnPage(dom)).toEqual(countsFromFiles(dir));
  return dom;
}

describe.skipIf(!chromium)('report.html in headless Chromium', () => {
  const demo = join(tmp, 'demo');
  const big = join(tmp, 'synthetic-100k');
  beforeAll(async () => {
    const mlp = await writeMlpVariant(join(tmp, 'mixed.safetensors'), { virusLogitShift: 0.4 });
    const r = runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--mlp', mlp, '--backend', 'wasm', '--out-dir', demo, '--quiet']);
    expect(r.status, r.stderr).toBe(0);
    const made = spawnSync(process.execPath, [syntheticRun, big, '100000'], { encoding: 'utf8' });
    expect(made.status, made.stderr).toBe(0);
  }, 180_000);

  it('the demo run (written by predict): no console output or error, the TSVs\' counts, the track of the record', () => {
    const dom = expectOpensCleanly(demo);
    expect(countsFromFiles(demo).regions).toBeGreaterThan(0);
    expect(dom).toContain('id="track-title">gi|9626243|ref|NC_001416.1|<');
    expect(dom).toMatch(/<canvas/); // uPlot drew
  }, 60_000);

  it('100,000 frames (virnucpro report): the same, a capped-size file, the table paged', () => {
    const r = runCli(['report', big]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe(`report: ${join(big, 'report.html')}\n`);
    expect(statSync(join(big, 'report.html')).size).toBeLessThan(5_000_000);
    const dom = expectOpensCleanly(big);
    expect([...dom.matchAll(/<tr data-id=/g)]).toHaveLength(100); // the first page
  }, 120_000);
});

describe('virnucpro report on folders it cannot use', () => {
  it('an older run folder (no chunk_scores.tsv, the old summary): exit 2, one line, nothing written', () => {
    const old = join(tmp, 'old');
    cpSync(join(testData, 'e2e', 'test_with_orfs'), old, { recursive: true });
    writeFileSync(join(old, 'run_summary.json'), '{"version":1,"status":"complete"}\n');
    writeFileSync(join(old, 'sequence_summary.tsv'), 'Sequence_ID\tchunks\tviral_chunks\tfraction_viral\tbest_virus_score\tcall\n');
    const r = runCli(['report', old]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^virnucpro: .*old has no chunk_scores.tsv: the run was made by an older virnucpro \(or without it\); run predict again \(with --resume, the checkpoints are reused\)\n$/);
    expect(existsSync(join(old, 'report.html'))).toBe(false);
  });

  it('a folder that is no finished run, or none at all: exit 2, one line', () => {
    const r = runCli(['report', tmp]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(`virnucpro: ${tmp} is not a finished run: it has no run_summary.json\n`);
    const none = runCli(['report', join(tmp, 'missing')]);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe(`virnucpro: ${join(tmp, 'missing')}: no such folder\n`);
  });
});
