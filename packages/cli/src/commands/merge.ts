import { resolve } from 'node:path';
import type { CommandModule } from 'yargs';
import { mergeShards } from '../merge/merge-shards.js';
import { writeReportAfterRun } from './report.js';
import { runCommand } from './run-command.js';

/** `virnucpro merge`: the outputs of `predict --shard 1/N … N/N` joined into those of one unsharded run. */
export const mergeCommand: CommandModule = {
  command: 'merge <shard-dirs..>',
  describe: 'Join the output folders of predict --shard 1/N … N/N into the results of one unsharded run (byte for byte)',
  builder: (y) =>
    y
      // default: undefined: yargs gives a variadic positional a default of [], which help printed beside [required].
      .positional('shard-dirs', { type: 'string', array: true, default: undefined, describe: 'the --out-dir of every shard job, in any order' })
      .option('out-dir', { alias: 'o', type: 'string', demandOption: true, requiresArg: true, describe: 'folder for the merged results (created; refused if it holds anything unless --force)' })
      .option('force', { alias: 'f', type: 'boolean', default: false, describe: 'overwrite results already in --out-dir' })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors' })
      .example('$0 merge shards/1 shards/2 shards/3 shards/4 --out-dir results', 'four shards of one input')
      .epilogue(
        'Refuses (exit 2, nothing written) shard sets that do not cover the input exactly once: a missing or repeated part, ' +
          'shards of another input, of other models or options, or an unfinished shard. See docs/usage.md#sharded-runs-clusters and workflow/README.md.',
      ),
  handler: (args) =>
    runCommand(async () => {
      const outDir = resolve(args['out-dir'] as string);
      const summary = await mergeShards({ shardDirs: (args['shard-dirs'] as string[]).map((d) => resolve(d)), outDir, force: args.force as boolean });
      await writeReportAfterRun(outDir, (m) => console.error(m));
      if (!args.quiet) {
        console.error(`merged ${summary.merged.shards.length} shards: ${summary.sequences} sequences, ${summary.chunks} chunks, ${summary.frames} frames; results in ${outDir}`);
      }
    }),
};
