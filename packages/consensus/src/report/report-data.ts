// What report.html shows, read from a finished run folder: run_summary.json and the per-record files
// (sequence_summary.tsv, chunk_scores.tsv, viral_regions.tsv), read in step a record at a time into a
// ReportCollector (report-collector.ts: the caps that bound memory, whatever the run's size; a predict run feeds the
// same collector as it writes, and so writes report.html without reading its files back).

import { createReadStream, existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CHUNK_SCORES_FILE, CHUNK_SCORES_HEADER } from '../chunk-calls.js';
import { SEQUENCE_SUMMARY_FILE, SEQUENCE_SUMMARY_HEADER, SEQUENCE_SUMMARY_HEADER_V1 } from '../sequence-summary.js';
import { VIRAL_REGIONS_FILE, VIRAL_REGIONS_HEADER } from '../viral-regions.js';
import { ReportCollector, type ReportData, type ReportOptions } from './report-collector.js';

export const RUN_SUMMARY_FILE = 'run_summary.json';
export { HISTOGRAM_BINS } from './report-collector.js';

/** A run folder the report cannot be made from (not a finished run, or one made before the per-chunk files). */
export class ReportInputError extends Error {
  override readonly name = 'ReportInputError';
  /** Bad input (the CLI's exit 2), as FeatureFileError. */
  readonly code = 'BAD_INPUT';
}

export type { ReportData, ReportOptions, ReportRecord, ReportTrack } from './report-collector.js';

/**
 * The non-empty lines of one of a run's files after its header (one of `header`, else ReportInputError), read
 * 256 kB at a time and split here: a promise per block, not per line (a 1M-frame run of reads has ~800,000 lines a
 * file). Three files are open at once: a block each, with its lines, is what the report holds of them.
 */
class FileLines {
  private lines: string[] = [];
  private at = 0;
  private rest = '';
  private ended = false;
  private readonly chunks: AsyncIterator<string>;

  constructor(
    private readonly dir: string,
    private readonly file: string,
    private readonly header: string | readonly string[],
  ) {
    this.chunks = createReadStream(join(dir, file), { encoding: 'utf8', highWaterMark: 1 << 18 })[Symbol.asyncIterator]();
  }

  /** Reads and checks the header. */
  async open(): Promise<void> {
    await this.fill();
    expectHeader(this.dir, this.file, this.header, this.lines[this.at]);
    this.at++;
  }

  /** The next line, taken (undefined at the end of the file). */
  async next(): Promise<string | undefined> {
    if (this.at >= this.lines.length) await this.fill();
    return this.lines[this.at++];
  }

  /** The lines at the front whose first field is `id` (one record's rows), taken. */
  async takeRecord(id: string): Promise<string[]> {
    const taken: string[] = [];
    for (;;) {
      if (this.at >= this.lines.length) await this.fill();
      const line = this.lines[this.at];
      if (line === undefined || line.slice(0, line.indexOf('\t')) !== id) return taken;
      taken.push(line);
      this.at++;
    }
  }

  /** Reads on until a line is buffered or the file has ended. */
  private async fill(): Promise<void> {
    while (this.at >= this.lines.length && !this.ended) {
      const next = await this.chunks.next();
      let parts: string[];
      if (next.done) {
        this.ended = true;
        parts = [this.rest];
      } else {
        parts = (this.rest + (next.value as string)).split('\n');
        this.rest = parts.pop()!;
      }
      this.lines = [];
      this.at = 0;
      for (const raw of parts) {
        const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
        if (line !== '') this.lines.push(line);
      }
    }
  }
}

function expectHeader(dir: string, file: string, header: string | readonly string[], first: string | undefined): void {
  if (first === undefined || !(typeof header === 'string' ? [header] : header).includes(first)) {
    throw new ReportInputError(
      `${join(dir, file)}: not the ${file} this version writes (its first line is ${first === undefined ? 'missing' : `'${first.slice(0, 80)}'`}); ` +
        'the run was made by an older virnucpro: run predict again (with --resume, the checkpoints are reused)',
    );
  }
}


export async function readReportData(runDir: string, options: ReportOptions = {}): Promise<ReportData> {
  const summaryPath = join(runDir, RUN_SUMMARY_FILE);
  if (!existsSync(runDir)) throw new ReportInputError(`${runDir}: no such folder`);
  if (!existsSync(summaryPath)) throw new ReportInputError(`${runDir} is not a finished run: it has no ${RUN_SUMMARY_FILE}`);
  let run: Record<string, unknown>;
  try {
    run = JSON.parse(await readFile(summaryPath, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new ReportInputError(`${summaryPath}: not readable JSON (${(err as Error).message})`);
  }
  for (const file of [SEQUENCE_SUMMARY_FILE, CHUNK_SCORES_FILE, VIRAL_REGIONS_FILE]) {
    if (!existsSync(join(runDir, file))) {
      throw new ReportInputError(
        `${runDir} has no ${file}: the run was made by an older virnucpro (or without it); run predict again (with --resume, the checkpoints are reused)`,
      );
    }
  }

  // The three files in step, a record at a time (each holds the records in input order), through the collector that
  // the prediction writer feeds during a run: one way of gathering the report, whichever way it is made. Runs made
  // before the fraction_n column have the same first ten summary columns.
  const collector = new ReportCollector(options);
  const summaries = new FileLines(runDir, SEQUENCE_SUMMARY_FILE, [SEQUENCE_SUMMARY_HEADER, SEQUENCE_SUMMARY_HEADER_V1]);
  const chunkScores = new FileLines(runDir, CHUNK_SCORES_FILE, CHUNK_SCORES_HEADER);
  const regions = new FileLines(runDir, VIRAL_REGIONS_FILE, VIRAL_REGIONS_HEADER);
  for (const file of [summaries, chunkScores, regions]) await file.open();
  for (let line = await summaries.next(); line !== undefined; line = await summaries.next()) {
    const id = line.slice(0, line.indexOf('\t'));
    collector.addRecord(line, await chunkScores.takeRecord(id), await regions.takeRecord(id));
  }
  for (const [file, lines] of [[CHUNK_SCORES_FILE, chunkScores], [VIRAL_REGIONS_FILE, regions]] as const) {
    const left = await lines.next();
    if (left !== undefined) {
      throw new ReportInputError(`${join(runDir, file)}: a row of a record that ${SEQUENCE_SUMMARY_FILE} does not list there ('${left.slice(0, 80)}'): the files are not of one run`);
    }
  }
  return collector.data(run);
}
