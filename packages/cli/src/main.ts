import yargs from 'yargs';
import { commands } from './commands/index.js';
import { ExitCode } from './exit-codes.js';
import { STDIN_PATH } from './fs/input-source.js';

/** Runs the virnucpro CLI with the given arguments (without node and script). */
export async function main(argv: string[]): Promise<void> {
  // A lone `-` (standard input) is mangled by yargs' parser into ""; it stands for /dev/stdin instead.
  argv = argv.map((arg) => (arg === '-' ? STDIN_PATH : arg));
  let parser = yargs(argv)
    .scriptName('virnucpro')
    .usage('$0 <command> [options]\n\nFind viral sequences in DNA FASTA files with the VirNucPro method.')
    .strict()
    .demandCommand(1, 'Name a command; see the list above.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns ?? 110))
    .fail((msg, err) => {
      if (err) throw err;
      console.error(`${msg}\n\nRun 'virnucpro --help' for usage.`);
      process.exit(ExitCode.badInput);
    });
  for (const command of commands) parser = parser.command(command);
  // Anything that matched no command lands here: say so instead of exiting 0.
  parser = parser.command('$0', false, {}, (args) => {
    const given = args._.length ? `Unknown command: ${String(args._[0])}` : 'Name a command.';
    console.error(`${given}\n\nRun 'virnucpro --help' for the list of commands.`);
    process.exit(ExitCode.badInput);
  });
  await parser.parseAsync();
}
