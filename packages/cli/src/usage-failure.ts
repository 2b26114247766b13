// yargs' own failure messages ("Invalid values:\n  Argument: model-type, Given: 400, Choices: 300, 500", "Unknown
// argument: lenght") as one `virnucpro: …` line that says what to do: the closest option for a misspelt one, a
// clear word for an extra input file, the choices for a bad value.

export interface FailureContext {
  /** The command line as given (without node and script). */
  argv: readonly string[];
  /** The (sub)commands matched so far, e.g. ['embed', 'esm2']. */
  commands: readonly string[];
  /** Option names (and aliases) the matched command takes. */
  options: readonly string[];
  /** Top-level command names, for a misspelt command. */
  commandNames: readonly string[];
}

/** One line (without the `virnucpro: ` prefix) for a yargs failure message. */
export function usageFailureLine(message: string, context: FailureContext): string {
  const help = `see virnucpro ${[...context.commands, '--help'].join(' ')}`;
  const text = message.trim();
  const unknown = /^Unknown arguments?: (.+)$/s.exec(text);
  if (unknown) {
    // yargs lists a misspelt `--model-typ` twice: as typed and as its camel-case twin `modelTyp`.
    const names = unknown[1].split(', ').filter((name, _, all) => !(/[A-Z]/.test(name) && all.includes(kebabCase(name))));
    // Before any command matched, the first word is a misspelt command.
    if (context.commands.length === 0 && !names[0].startsWith('-') && !isOption(names[0], context.argv)) return unknownCommandLine(names[0], context.commandNames);
    return `${names.map((name) => unknownArgument(name, context)).join('; ')}; ${help}`;
  }
  const invalid = [...text.matchAll(/Argument: (\S+), Given: (.+?), Choices: (.+)$/gm)];
  if (invalid.length) {
    const line = invalid.map(([, name, given, choices]) => `${isOption(name, context.argv) ? '--' : ''}${name} ${given.replace(/"/g, '')} is not one of ${choices.replace(/"/g, '')}`);
    return `${line.join('; ')}; ${help}`;
  }
  const missing = /^Missing required arguments?: ([^\n]+)/.exec(text);
  if (missing) return `missing ${missing[1].split(', ').map((name) => `--${name}`).join(', ')}; ${help}`;
  if (/^Not enough non-option arguments/.test(text) || /^Name a /.test(text)) return `${missingPositional(context.commands)}; ${help}`;
  const suggestion = /^Did you mean (\S+)\?$/.exec(text);
  if (suggestion) return `unknown ${context.commands.length ? `${context.commands.join(' ')} ` : ''}command '${unmatchedWord(context)}' (did you mean ${suggestion[1]}?); ${help}`;
  return `${text.replace(/\s*\n\s*/g, ' ')}; ${help}`;
}

function kebabCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** An unknown command name, with the closest command if one is near. */
export function unknownCommandLine(name: string, commandNames: readonly string[]): string {
  const near = closest(name, commandNames);
  return `unknown command '${name}'${near ? ` (did you mean ${near}?)` : ''}; virnucpro --help lists the commands`;
}

/** What a command without its positional argument lacks. */
function missingPositional(commands: readonly string[]): string {
  switch (commands[0]) {
    case 'embed':
    case 'convert':
      return commands.length > 1 ? 'name SRC and DEST' : 'name a model: esm2 or dnabert';
    case 'models':
    case 'config':
      return 'name an action';
    case 'merge':
      return 'name the --out-dir folders of the shards';
    case undefined:
      return 'name a command';
    default:
      return 'missing the input file';
  }
}

/** Whether the command line gave `name` as an option (--name, --name=…, -n, --no-name). */
function isOption(name: string, argv: readonly string[]): boolean {
  return argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`) || arg === `-${name}` || arg === `--no-${name}`);
}

function unknownArgument(name: string, context: FailureContext): string {
  if (isOption(name, context.argv)) {
    const dashes = name.length === 1 ? '-' : '--';
    const near = closest(name, context.options.filter((o) => o.length > 1));
    return `unknown option ${dashes}${name}${near ? ` (did you mean --${near}?)` : ''}`;
  }
  const command = context.commands.join(' ');
  if (command === 'predict' || command === 'prep') {
    return `unexpected extra argument '${name}': ${command} reads one input file (several: concatenate them, e.g. cat a.fa b.fa | virnucpro ${command} -, or run one ${command} each)`;
  }
  return `unexpected extra argument '${name}'`;
}

/** The first word on the command line that is not one of the matched commands. */
function unmatchedWord(context: FailureContext): string {
  return context.argv.filter((arg) => !arg.startsWith('-')).find((arg, i) => arg !== context.commands[i]) ?? '';
}

/** The candidate nearest to `word` by edit distance, if within a third of its length (at least 1, at most 3). */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (d <= limit && d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

/** Levenshtein distance, with a swap of two neighbours counted as one edit ("lenght" → "length"). */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
