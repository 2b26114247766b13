import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Argv } from 'yargs';
import { commands } from './commands/index.js';
import { ExitCode } from './exit-codes.js';
import { STDIN_PATH } from './fs/input-source.js';
import { unknownCommandLine, usageFailureLine } from './usage-failure.js';

// yargs' CommonJS build: its help layout wraps at word boundaries (the ES module build's cliui cuts words apart).
const yargs = createRequire(import.meta.url)('yargs/yargs') as (args: string[]) => Argv;

/** This package's version (package.json), printed by -V, --version and `virnucpro version`. */
export const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/** Help text width: the terminal's (COLUMNS when stdout is not one), at most 110 columns. */
function helpWidth(): number {
  const columns = process.stdout.columns ?? Number(process.env.COLUMNS);
  return Math.min(110, Number.isFinite(columns) && columns >= 40 ? columns : 110);
}

/** Runs the virnucpro CLI with the given arguments (without node and script). */
export async function main(argv: string[]): Promise<void> {
  await cliParser(argv).parseAsync();
}

/** The whole command tree as one yargs parser of `argv` (tests render every command's help from it). */
export function cliParser(argv: string[]): Argv {
  // A lone `-` (standard input) is mangled by yargs' parser into ""; it stands for /dev/stdin instead.
  argv = argv.map((arg) => (arg === '-' ? STDIN_PATH : arg));
  let parser = yargs(argv)
    .scriptName('virnucpro')
    .usage('$0 <command> [options]\n\nFind viral sequences in DNA FASTA files with the VirNucPro method.')
    .strict()
    .demandCommand(1, 'Name a command.')
    .recommendCommands()
    .help()
    .alias('h', 'help')
    .version(VERSION)
    .alias('V', 'version')
    .wrap(helpWidth())
    .fail((msg, err) => {
      if (err && !msg) throw err;
      // One line, as every other refusal: what is wrong and what to do (the closest option, the choices).
      // Where yargs is in the command tree: its instance is reset to the matched command's options.
      const state = parser as unknown as { getOptions(): { key: Record<string, unknown> }; getInternalMethods(): { getContext(): { commands: string[] } } };
      const context = { argv, commands: state.getInternalMethods().getContext().commands, options: Object.keys(state.getOptions().key), commandNames };
      console.error(`virnucpro: ${usageFailureLine(msg ?? String(err), context)}`);
      process.exit(ExitCode.badInput);
    });
  const commandNames = [...commands.map((c) => String(c.command).split(' ')[0]), 'version'];
  for (const command of commands) parser = parser.command(command);
  parser = parser.command('version', 'Print the version of virnucpro', {}, () => console.log(VERSION));
  // Anything that matched no command lands here: say so instead of exiting 0.
  parser = parser.command('$0', false, {}, (args) => {
    const given = args._.length ? unknownCommandLine(String(args._[0]), commandNames) : 'name a command; virnucpro --help lists them';
    console.error(`virnucpro: ${given}`);
    process.exit(ExitCode.badInput);
  });
  return parser;
}
