import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { inputStem, prepFasta, prepOutputPaths, type PrepCounts } from '@virnucpro/predict';
import { UsageError } from '../errors.js';
import type { CommandModule } from 'yargs';
import { outDirError } from '../fs/out-dir-error.js';
import { plural } from '../progress/plural.js';
import { interruptibly } from './interruptible.js';
import { runCommand } from './run-command.js';
import { INPUT_KINDS } from '../config/shared-option-help.js';
import { openInputFile, renameInputInError } from '../fs/input-source.js';


/**
 * `virnucpro prep`: VirNucPro stages 1–2 (chunking, six-frame translation) on their own, writing the same three
 * intermediate files as the original tool, byte for byte.
 */
export const prepCommand: CommandModule = {
  command: 'prep <input>',
  describe: 'Chunk a DNA FASTA file and keep every stop-free six-frame translation (the chunking and translation of predict)',
  builder: (y) =>
    y
      .positional('input', { type: 'string', describe: INPUT_KINDS })
      .option('length', {
        alias: ['l', 'expected-length'],
        type: 'number',
        choices: [300, 500],
        default: 500,
        describe: 'chunk length in bases (match the VirNucPro model: 300 or 500)',
      })
      .option('out-dir', { alias: 'o', type: 'string', default: '.', describe: 'directory for the output files (created if missing)' })
      .option('min-length', { type: 'number', requiresArg: true, defaultDescription: 'none, as the original', describe: 'skip records shorter than this many bases (counted)' })
      .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite output files that already exist' })
      .option('quiet', { alias: 'q', type: 'boolean', describe: 'print nothing but errors' })
      .epilogue(
        [
          'Writes, with {stem} = the input file name up to its first ".fa":',
          '  {stem}_chunked{L}.fa               chunks {id}_chunk_{k}, 60-column lines',
          '  {stem}_identified_nucleotide.fa    nucleotides of every stop-free frame, ids {chunk}F1..F3/R1..R3',
          '  {stem}_identified_protein.faa      the matching proteins',
          'Files appear only when complete. Exit codes: 0 ok, 1 error, 2 bad input, 130/143 interrupted.',
        ].join('\n'),
      )
      .example('$0 prep test-data/lambda_virus.fa --length 500 --out-dir demo-out', 'phage lambda in 500 bp chunks'),
  handler: (args) =>
    runCommand(async () => {
      const input = args.input as string;
      const chunkSize = Number(args.length);
      const outDir = resolve(args['out-dir'] as string);
      const quiet = Boolean(args.quiet);
      const minLength = args['min-length'] as number | undefined;
      if (minLength !== undefined && !(Number.isInteger(minLength) && minLength >= 1)) {
        // NaN: yargs' number type turned a word into it.
        throw new UsageError(`--min-length: expected a whole number of at least 1, got ${Number.isNaN(minLength) ? 'a value that is not a number' : JSON.stringify(String(minLength))}`);
      }
      // The overwrite rule of every command: existing results stay unless --force.
      const existing = Object.values(prepOutputPaths(outDir, inputStem(input), chunkSize)).filter((path) => existsSync(path));
      if (existing.length && !args.force) {
        throw new UsageError(`${existing[0]} already exists${existing.length > 1 ? ` (and ${plural(existing.length - 1, 'more output')})` : ''}; pass --force to overwrite, or choose another --out-dir`);
      }
      const progress = !quiet && process.stderr.isTTY ? new TtyProgressLine(process.stderr) : undefined;

      // Ctrl-C / kill: prepFasta stops at its next batch and removes its temp files; exit 130 / 143.
      const started = Date.now();
      await interruptibly(async (signal) => {
        try {
          const summary = await prepInput(input, {
            chunkSize,
            outDir,
            signal,
            ...(minLength !== undefined ? { minLength } : {}),
            onProgress: progress && ((counts) => progress.update(counts)),
          });
          progress?.clear();
          for (const path of [summary.paths.chunked, summary.paths.nucleotide, summary.paths.protein]) console.log(path);
          if (!quiet) {
            const seconds = (Date.now() - started) / 1000;
            console.error(
              `prep: ${plural(summary.records, 'record')} (${summary.bases.toLocaleString('en-US')} bases) → ` +
                `${plural(summary.chunks, 'chunk')} of ≤ ${chunkSize} bp → ${plural(summary.frames, 'stop-free frame')} ` +
                `in ${seconds.toFixed(1)} s` +
                (minLength !== undefined ? `; ${plural(summary.skipped, 'record')} shorter than --min-length ${minLength} skipped` : ''),
            );
          }
        } catch (err) {
          // A folder that cannot be made (a file, /proc/x, read-only) is one line and exit 2, as in predict.
          throw (err as NodeJS.ErrnoException).syscall === 'mkdir' ? outDirError(args['out-dir'] as string, err) : err;
        } finally {
          progress?.clear();
        }
      });
    }),
};

/** prepFasta on the input as given: standard input (`-`) is first copied to a file, named `stdin` in outputs and messages as `-`. */
async function prepInput(input: string, options: Parameters<typeof prepFasta>[1]) {
  const file = await openInputFile(input);
  try {
    return await prepFasta(file.path, { stem: inputStem(input), ...options });
  } catch (err) {
    throw renameInputInError(err, file);
  } finally {
    await file.dispose();
  }
}

/** One self-overwriting stderr line with counts and rates, redrawn at most 4 times a second. */
class TtyProgressLine {
  private readonly started = Date.now();
  private lastDraw = 0;
  private drawn = false;
  constructor(private readonly stream: NodeJS.WriteStream) {}

  update(counts: Readonly<PrepCounts>): void {
    const now = Date.now();
    if (now - this.lastDraw < 250) return;
    this.lastDraw = now;
    const seconds = Math.max((now - this.started) / 1000, 1e-3);
    const line =
      `prep: ${counts.records.toLocaleString('en-US')} records, ${counts.chunks.toLocaleString('en-US')} chunks, ` +
      `${counts.frames.toLocaleString('en-US')} frames | ${Math.round(counts.records / seconds).toLocaleString('en-US')} records/s, ` +
      `${(counts.bases / seconds / 1e6).toFixed(1)} Mbases/s`;
    this.stream.write(`\r\x1b[K${line.slice(0, (this.stream.columns ?? 120) - 1)}`);
    this.drawn = true;
  }

  clear(): void {
    if (this.drawn) this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}
