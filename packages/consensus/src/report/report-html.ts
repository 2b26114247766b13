// report.html: one self-contained page (uPlot, the page's script and its data inlined; nothing fetched) from
// ReportData. The server side only lays out the facts and the empty frames; the page's script fills the rest.

import { REPORT_CSS, REPORT_JS } from './report-page.js';
import type { ReportData } from './report-data.js';
import { UPLOT_CSS, UPLOT_JS, UPLOT_LICENSE, UPLOT_VERSION } from './uplot-assets.js';

export const REPORT_FILE = 'report.html';

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON that is safe inside <script>: no `</script>`, no `<!--`. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

function get(o: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);
}

const number = (x: unknown, digits = 0) =>
  typeof x === 'number' && Number.isFinite(x) ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '';

/** The run's input as a person reads it: `predict -` reads standard input, and run_summary.json says `-`. */
export function inputLabel(run: Record<string, unknown>): string | undefined {
  const input = run.input as string | undefined;
  return input === '-' ? 'standard input' : input;
}

/** A warning to show above everything, when the calls mean nothing (the demo models have random weights). */
export function demoModelsWarning(run: Record<string, unknown>): string | undefined {
  return run.demoModels === true
    ? 'This run used the demo models (random weights): its virus/others calls mean nothing. For real calls, run virnucpro models download and predict again.'
    : undefined;
}

/** The run's facts as label → text (from run_summary.json; fields a run does not have are left out). */
export function runFacts(run: Record<string, unknown>): [string, string][] {
  const facts: [string, string | undefined][] = [];
  const add = (label: string, value: string | undefined) => facts.push([label, value]);
  const models = run.models as Record<string, string> | undefined;
  const merged = run.merged as { shards?: unknown[] } | undefined;
  const regions = run.regions as { gap?: number; maxGapBases?: number; minChunks?: number } | undefined;
  add('input', inputLabel(run));
  add('chunk length', run.chunkLength !== undefined ? `${String(run.chunkLength)} bp` : undefined);
  add('ESM-2', models?.esm);
  add('DNABERT-S', models?.dnabert);
  add('MLP', models?.mlp);
  add('backend', run.backend as string | undefined);
  add('precision', run.precision as string | undefined);
  add('GPU', get(run, 'cuda.gpu') as string | undefined);
  add('started', run.startedAt as string | undefined);
  add('finished', run.finishedAt as string | undefined);
  add('time', typeof run.totalSeconds === 'number' ? `${number(run.totalSeconds, 1)} s` : undefined);
  add('sequences / chunks / frames', [run.sequences, run.chunks, run.frames].every((x) => typeof x === 'number') ? `${number(run.sequences)} / ${number(run.chunks)} / ${number(run.frames)}` : undefined);
  add('throughput', typeof run.framesPerSecond === 'number' ? `${number(run.framesPerSecond, 1)} frames/s, ${number(get(run, 'tokensPerSecond.esm'))} ESM-2 tokens/s` : undefined);
  add('resumed frames', typeof run.resumedSequences === 'number' && run.resumedSequences > 0 ? number(run.resumedSequences) : undefined);
  add('merged from', merged?.shards ? `${merged.shards.length} shards` : undefined);
  add('regions', regions ? `gap ≤ ${regions.gap} non-viral chunks and ≤ ${number(regions.maxGapBases)} bp; ≥ ${regions.minChunks} viral chunks` : undefined);
  return facts.filter((f): f is [string, string] => f[1] !== undefined && f[1] !== '');
}

export interface ReportHtmlOptions {
  /** Shown under the title (default: the run's input). */
  title?: string;
  /** When the report was made (default now; fixed in tests). */
  generatedAt?: Date;
}

const RECORD_COLUMNS = ['id', 'length', 'chunks', 'scored', 'viral', 'fraction', 'regions', 'viralBases', 'best', 'call'] as const;

/**
 * The data as the page reads it, compact (a 1M-frame report stays a few MB): records as rows of RECORD_COLUMNS
 * (NaN as null), tracks with start deltas and widths instead of starts and ends (see REPORT_JS's decoder).
 */
export function packReportData(data: ReportData): unknown {
  const finite = (x: number) => (Number.isFinite(x) ? x : null);
  const tracks: Record<string, unknown> = {};
  for (const [id, t] of Object.entries(data.tracks)) {
    tracks[id] = {
      ds: t.start.map((s, i) => s - (i > 0 ? t.start[i - 1] : 0)),
      w: t.end.map((e, i) => e - t.start[i] + 1),
      s: t.score,
      v: t.viral,
      n: t.chunksPerBin,
      r: t.regions,
    };
  }
  return {
    counts: data.counts,
    histogram: data.histogram,
    columns: RECORD_COLUMNS,
    records: data.records.map((r) => RECORD_COLUMNS.map((k) => (typeof r[k] === 'number' ? finite(r[k] as number) : r[k]))),
    tracks,
  };
}

export function renderReportHtml(data: ReportData, options: ReportHtmlOptions = {}): string {
  const c = data.counts;
  const card = (path: string, label: string, cls = '') => `<div class="card"><div class="n ${cls}" data-count="${path}">${number(get(c, path))}</div><div class="l">${esc(label)}</div></div>`;
  const capped = data.records.length < c.records;
  const withTracks = Object.keys(data.tracks).length;
  const title = options.title ?? inputLabel(data.run) ?? '';
  const warning = demoModelsWarning(data.run);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>virnucpro report — ${esc(title)}</title>
<!-- uPlot ${esc(UPLOT_VERSION)} (https://github.com/leeoniya/uPlot) is inlined below under its licence:
${esc(UPLOT_LICENSE)}
-->
<style>${UPLOT_CSS}</style><style>${REPORT_CSS}</style>
</head><body><main>
<h1>virnucpro report</h1>
${warning ? `<p class="warning" role="alert" id="demo-models-warning">${esc(warning)}</p>\n` : ''}<p class="sub">${esc(title)} · made ${esc((options.generatedAt ?? new Date()).toISOString())} from the files beside it</p>
<dl class="facts">${runFacts(data.run).map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${esc(v)}</dd></div>`).join('')}</dl>
<h2>Counts</h2>
<div class="cards">
${card('records', 'records')}${card('recordCalls.virus', 'records called virus', 'virus')}${card('recordCalls.others', 'records called others', 'others')}${card('recordCalls.unscored', 'records unscored (no stop-free frame)', 'unscored')}
${card('chunks', 'chunks')}${card('chunkCalls.virus', 'viral chunks', 'virus')}${card('chunkCalls.others', 'non-viral chunks', 'others')}${card('chunkCalls.unscored', 'unscored chunks', 'unscored')}
${card('regions', 'viral regions', 'virus')}${card('viralBases', 'bases in viral regions', 'virus')}
</div>
<h2>Chunk scores</h2>
<div class="panel"><div id="histogram"></div><p class="note">Best virus score (score2) of each scored chunk; unscored chunks have no score. A chunk is viral when its best virus score is at least its best non-virus score.</p></div>
<h2 id="track-section" class="track-part">Track: <span id="track-title"></span></h2>
<div class="panel track-part"><p class="note" id="track-note"></p><div id="track"></div>
<p class="note legend"><span><i class="sw" style="background:rgba(192,57,43,0.25)"></i>viral region</span><span><i class="sw" style="background:#c0392b"></i>viral chunk</span><span><i class="sw" style="background:#2f6db5"></i>non-viral chunk</span><span><i class="sw" style="background:#b5bcc7"></i>unscored chunk (no stop-free frame)</span></p></div>
<h2>Records</h2>
<p class="note">${capped ? `Showing the ${number(data.records.length)} most viral of ${number(c.records)} records (most regions, then viral chunks); every record is in sequence_summary.tsv. ` : ''}Tracks for ${number(withTracks)} of them. Click a row for its track; click a column to sort.</p>
<div class="controls"><input id="search" type="search" placeholder="search Sequence_ID"><button id="prev">◀</button><button id="next">▶</button><span id="page" class="note"></span></div>
<table><thead id="thead"></thead><tbody id="tbody"></tbody></table>
</main>
<script type="application/json" id="report-data">${scriptJson(packReportData(data))}</script>
<script>${UPLOT_JS}</script>
<script>${REPORT_JS}</script>
</body></html>
`;
}
