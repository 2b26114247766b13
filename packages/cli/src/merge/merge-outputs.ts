import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BufferedAtomicFile } from '@virnucpro/atomic-file';
import {
  CHUNK_SCORES_FILE,
  CONSENSUS_FILE,
  VIRAL_REGIONS_BED_FILE,
  VIRAL_REGIONS_FILE,
  PREDICTION_RESULTS_FILE,
  SEQUENCE_SUMMARY_FILE,
  compareCodePoints,
  consensusKey,
  originalSequenceId,
} from '@virnucpro/consensus';
import { LineReader } from './line-reader.js';
import { recordsInInputOrder } from './records-in-input-order.js';
import type { ShardSet } from './shard-set.js';

/** The three result files that a merge rebuilds, byte for byte as one unsharded run writes them. */
export const MERGED_FILES = [PREDICTION_RESULTS_FILE, CONSENSUS_FILE, SEQUENCE_SUMMARY_FILE] as const;
/** The per-record files that shards of this version also hold (merged the same way, when every shard has them). */
export const MERGED_RECORD_FILES = [CHUNK_SCORES_FILE, VIRAL_REGIONS_FILE, VIRAL_REGIONS_BED_FILE] as const;
/** Files of MERGED_RECORD_FILES that start with a header line (the BED file has none). */
const HEADERLESS = new Set<string>([VIRAL_REGIONS_BED_FILE]);

/** A shard's file that does not hold what its record list says (damaged, or from another run). */
export class ShardContentError extends Error {
  override readonly name = 'ShardContentError';
}

/**
 * Writes the merged result files into `outDir` under temporary names and returns them completed but not yet
 * published (the caller publishes them together, or discards them on failure).
 * - prediction_results.txt and sequence_summary.tsv: rows in input record order. Records go back in the order
 *   of their input position; a record's prediction rows are the consecutive rows of its shard whose frame id
 *   belongs to it (the id up to `_chunk_`, as the sequence summary groups them), and its summary row is the
 *   shard's next one.
 * - prediction_results_highestscore.csv: sorted by chunk key in every shard, so a k-way merge by the same code
 *   point order (a record's chunks all sit in one shard, so no key is in two shards).
 * - chunk_scores.tsv, viral_regions.tsv, viral_regions.bed (when every shard has them; shards of older versions
 *   have none): a record's rows are the consecutive rows of its shard whose first field is the record id
 *   (chunk_scores.tsv must have one row per chunk: as many as the record's summary row says).
 */
export async function writeMergedOutputs(set: ShardSet, outDir: string): Promise<BufferedAtomicFile[]> {
  const staged: BufferedAtomicFile[] = [];
  const readers: LineReader[] = [];
  const open = (shardDir: string, file: string) => {
    const reader = new LineReader(join(shardDir, file));
    readers.push(reader);
    return reader;
  };
  try {
    const predictions = await BufferedAtomicFile.create(join(outDir, PREDICTION_RESULTS_FILE));
    staged.push(predictions);
    const summary = await BufferedAtomicFile.create(join(outDir, SEQUENCE_SUMMARY_FILE));
    staged.push(summary);
    const predictionReaders = set.shards.map((s) => open(s.dir, PREDICTION_RESULTS_FILE));
    const summaryReaders = set.shards.map((s) => open(s.dir, SEQUENCE_SUMMARY_FILE));
    await predictions.write(`${await sameHeader(predictionReaders)}\n`);
    await summary.write(`${await sameHeader(summaryReaders)}\n`);
    const recordFiles = await perRecordFiles(set, outDir, staged, open);
    const rows = new Array<number>(set.shards.length).fill(0);
    for await (const { shard: s, record } of recordsInInputOrder(set.shards, set.inputRecords)) {
      const row = await summaryReaders[s].next();
      if (row === undefined || firstField(row) !== record.id) throw mismatch(summaryReaders[s], `the summary row of '${record.id}'`, row);
      await summary.write(`${row}\n`);
      for (const file of recordFiles) {
        let count = 0;
        for (let line = await file.readers[s].peek(); line !== undefined && firstField(line) === record.id; line = await file.readers[s].peek()) {
          await file.out.write(`${line}\n`);
          await file.readers[s].next();
          count++;
        }
        // Every chunk has a row: the summary's `chunks` column (the third) says how many.
        if (file.name === CHUNK_SCORES_FILE && String(count) !== row.split('\t')[2]) {
          throw mismatch(file.readers[s], `${row.split('\t')[2]} chunk rows of '${record.id}' (found ${count})`, await file.readers[s].peek());
        }
      }
      for (let line = await predictionReaders[s].peek(); line !== undefined && recordOfFrame(line) === record.id; line = await predictionReaders[s].peek()) {
        await predictions.write(`${line}\n`);
        await predictionReaders[s].next();
        rows[s]++;
      }
    }
    for (const reader of [...predictionReaders, ...summaryReaders, ...recordFiles.flatMap((f) => f.readers)]) {
      const extra = await reader.next();
      if (extra !== undefined) throw mismatch(reader, 'the end of the file (every record placed)', extra);
    }
    // A lost or added row of a record would go unseen above: the shard's frame count must match.
    set.shards.forEach((shard, s) => {
      if (rows[s] !== shard.summary.frames) {
        throw new ShardContentError(`${predictionReaders[s].path}: ${rows[s]} rows, but its run_summary.json counts ${shard.summary.frames} frames`);
      }
    });

    const consensus = await BufferedAtomicFile.create(join(outDir, CONSENSUS_FILE));
    staged.push(consensus);
    await mergeSorted(set.shards.map((s) => open(s.dir, CONSENSUS_FILE)), consensus);
    for (const file of staged) await file.complete();
    return staged;
  } catch (err) {
    for (const file of staged) await file.discard();
    throw err;
  } finally {
    for (const reader of readers) reader.close();
  }
}

interface RecordFileMerge {
  name: string;
  out: BufferedAtomicFile;
  readers: LineReader[];
}

/** The MERGED_RECORD_FILES that every shard holds, opened (headers checked and written); none if no shard has them. */
async function perRecordFiles(
  set: ShardSet,
  outDir: string,
  staged: BufferedAtomicFile[],
  open: (shardDir: string, file: string) => LineReader,
): Promise<RecordFileMerge[]> {
  const merges: RecordFileMerge[] = [];
  for (const name of MERGED_RECORD_FILES) {
    const present = set.shards.filter((s) => existsSync(join(s.dir, name)));
    if (present.length === 0) continue;
    if (present.length < set.shards.length) {
      const without = set.shards.find((s) => !existsSync(join(s.dir, name)))!;
      throw new ShardContentError(`${join(without.dir, name)} is missing, but other shards have ${name} (shards of different versions?)`);
    }
    const out = await BufferedAtomicFile.create(join(outDir, name));
    staged.push(out);
    const readers = set.shards.map((s) => open(s.dir, name));
    if (!HEADERLESS.has(name)) await out.write(`${await sameHeader(readers)}\n`);
    merges.push({ name, out, readers });
  }
  return merges;
}

/** k-way merge of files sorted by their first field (code point order); N is small, so a scan of the heads. */
async function mergeSorted(readers: LineReader[], out: BufferedAtomicFile): Promise<void> {
  await out.write(`${await sameHeader(readers)}\n`);
  const heads = await Promise.all(readers.map((r) => r.next()));
  for (;;) {
    let best = -1;
    for (let i = 0; i < heads.length; i++) {
      if (heads[i] === undefined) continue;
      if (best < 0 || compareCodePoints(firstField(heads[i]!), firstField(heads[best]!)) < 0) best = i;
    }
    if (best < 0) return;
    await out.write(`${heads[best]}\n`);
    heads[best] = await readers[best].next();
  }
}

/** Every shard's first line, which must be the same header; returns it. */
async function sameHeader(readers: LineReader[]): Promise<string> {
  const headers = await Promise.all(readers.map((r) => r.next()));
  const header = headers[0];
  headers.forEach((h, i) => {
    if (h === undefined || h !== header) throw mismatch(readers[i], `the header '${header}'`, h);
  });
  return header!;
}

function firstField(line: string): string {
  const tab = line.indexOf('\t');
  return tab < 0 ? line : line.slice(0, tab);
}

/** The input record of a prediction row: its frame id without the frame (F1..R3) and `_chunk_<k>`. */
function recordOfFrame(line: string): string {
  return originalSequenceId(consensusKey(firstField(line)));
}

function mismatch(reader: LineReader, expected: string, found: string | undefined): ShardContentError {
  return new ShardContentError(`${reader.path}: line ${reader.lineNumber}: expected ${expected}, found ${found === undefined ? 'the end of the file' : `'${found}'`}`);
}
