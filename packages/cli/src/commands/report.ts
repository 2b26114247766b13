import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { writeReport, writeReportData, type ReportData } from '@virnucpro/consensus';
import { runCommand } from './run-command.js';

/** `virnucpro report RUN_DIR`: report.html from the files of a finished run (predict, or merge of shards). */
export const reportCommand: CommandModule = {
  command: 'report <run-dir>',
  describe: 'Write report.html (one self-contained page: counts, score histogram, records table, tracks along each sequence) into a finished run folder',
  builder: (y) =>
    y
      .positional('run-dir', { type: 'string', describe: 'the --out-dir of a finished predict or merge' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors' })
      .example('$0 report results', 'results/report.html; open it in a browser (no network needed)')
      .epilogue('predict and merge write it too. A folder made by a version without chunk_scores.tsv is refused (exit 2): run predict again with --resume.'),
  handler: (args) =>
    runCommand(async () => {
      const path = await writeReport(resolve(args['run-dir'] as string));
      if (!args.quiet) console.error(`report: ${path}`);
    }),
};

/**
 * After predict or merge: the report (from `data` gathered during the run, else from the run's files), or a warning
 * saying why not (the results themselves are complete).
 */
export async function writeReportAfterRun(runDir: string, warn: (message: string) => void, data?: ReportData): Promise<void> {
  await (data ? writeReportData(runDir, data) : writeReport(runDir)).catch((err: Error) => warn(`virnucpro: warning: report.html not written: ${err.message}`));
}
