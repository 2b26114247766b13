// Every command's --help, rendered in-process from the real command tree: help that reads as help (one line
// per option, no benchmark figures: those live in docs/benchmarks.md), and an option that several commands take
// shown the same way in each (type, choices, short flag). Issue 48, part 3.
import { describe, expect, it } from 'vitest';
import { cliParser } from '../src/main.js';

/** Every command and subcommand (the empty path is `virnucpro --help`). */
const COMMANDS = [
  [], ['config'], ['models'], ['prep'], ['classify'], ['embed'], ['embed', 'esm2'], ['embed', 'dnabert'],
  ['convert'], ['convert', 'esm2'], ['convert', 'dnabert'], ['predict'], ['merge'], ['report'], ['version'],
];

/** The help width main.ts uses at most (a wider terminal gets no wider help). */
const WIDTH = 110;

/** `virnucpro <path> --help` as printed at `width` columns (null: one unwrapped line per entry). */
function helpText(path: string[], width: number | null): Promise<string> {
  const parser = cliParser([...path, '--help']).wrap(width).exitProcess(false);
  return new Promise((resolve) => void parser.parse([...path, '--help'], {}, (_err: unknown, _argv: unknown, output: string) => resolve(output)));
}

interface ShownOption {
  name: string;
  short?: string;
  type?: string;
  choices?: string;
}

/** The options listed in an unwrapped help text: `  -o, --out-dir  description  [string] [choices: …]`. */
function shownOptions(text: string): ShownOption[] {
  const options: ShownOption[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s+(?:-(\w), )?--([\w-]+)(?:, --[\w-]+)*\s\s(.*)$/.exec(line);
    if (!m) continue;
    const [, short, name, rest] = m;
    options.push({
      name,
      ...(short ? { short } : {}),
      ...(/\[(string|number|boolean|array|count)\]/.exec(rest) ? { type: /\[(string|number|boolean|array|count)\]/.exec(rest)![1] } : {}),
      ...(/\[choices: ([^\]]*)\]/.exec(rest) ? { choices: /\[choices: ([^\]]*)\]/.exec(rest)![1] } : {}),
    });
  }
  return options;
}

/** What a benchmark figure looks like: speed-ups, rates, GPUs, precise percentages, timings, accuracy figures. */
const BENCHMARK_FIGURE = /×|TFLOP|tokens\/s|frames\/s|\bH[12]00\b|\d\.\d+ ?%|\d+ ?min \d|\d+(\.\d+)? ?s\b.*\d+(\.\d+)? ?s\b|cosine|≥ 0\.9/;

describe('virnucpro --help of every command', () => {
  it('no line carries a benchmark figure; the one place for them is named instead', async () => {
    // The pattern itself catches what predict --precision printed before (a test that can fail).
    expect('~1.5× bf16 and ~1.9× compiled PyTorch fp16 on ESM-2 3B on an H100').toMatch(BENCHMARK_FIGURE);
    expect('0.03 % of frames at 300 bp').toMatch(BENCHMARK_FIGURE);
    for (const path of COMMANDS) {
      const text = await helpText(path, WIDTH);
      const figures = text.split('\n').filter((line) => BENCHMARK_FIGURE.test(line));
      expect(figures, `virnucpro ${path.join(' ')} --help`).toEqual([]);
    }
    expect(await helpText(['predict'], WIDTH)).toContain('docs/benchmarks.md');
  });

  it('one line per option: a second line, if any, holds only the type, choices and default', async () => {
    const wrapped: string[] = [];
    for (const path of COMMANDS) {
      const lines = (await helpText(path, WIDTH)).split('\n');
      const optionsAt = lines.findIndex((line) => /^(Options|Positionals):$/.test(line));
      if (optionsAt < 0) continue;
      for (let i = optionsAt + 1; i < lines.length && !/^(Examples|Commands):$/.test(lines[i]); i++) {
        const line = lines[i];
        // An entry starts at column 2 (`input`, `-o, --out-dir`) or, without a short flag, at column 6 (`--model`).
        if (line === '' || /^(Options|Positionals):$/.test(line) || /^ {2}[\w-]/.test(line) || /^ {6}--/.test(line)) continue;
        // A continuation line: only bracketed annotations may wrap onto it.
        if (!/^(\[[^\]]*\]\s*)+$/.test(line.trim())) wrapped.push(`virnucpro ${path.join(' ')} --help: ${line.trim()}`);
      }
    }
    expect(wrapped).toEqual([]);
  });

  it('an option several commands take has the same type, choices and short flag in each', async () => {
    const seen = new Map<string, { command: string; shown: ShownOption }>();
    const differences: string[] = [];
    for (const path of COMMANDS) {
      const command = path.join(' ') || '(top level)';
      for (const shown of shownOptions(await helpText(path, null))) {
        // Two options that only share a name: classify's --summary writes sequence_summary.tsv (--no-summary
        // skips it); embed's --summary FILE writes a JSON run summary. Renaming either would break scripts.
        if (shown.name === 'summary' && command === 'classify') continue;
        const first = seen.get(shown.name);
        if (!first) seen.set(shown.name, { command, shown });
        else if (JSON.stringify(first.shown) !== JSON.stringify(shown)) differences.push(`--${shown.name}: ${first.command} ${JSON.stringify(first.shown)}, ${command} ${JSON.stringify(shown)}`);
      }
    }
    // Options the check must see in several commands, or it checks nothing.
    for (const name of ['backend', 'precision', 'token-budget', 'threads', 'quiet', 'force', 'out-dir', 'min-length', 'length']) expect(seen.has(name), name).toBe(true);
    expect(differences).toEqual([]);
  });

  it('names the input kinds where input is taken', async () => {
    const predict = await helpText(['predict'], null);
    expect(predict).toMatch(/^\s+input\s+.*FASTA.*FASTQ.*gzip.*- for standard input/m);
    const prep = await helpText(['prep'], null);
    expect(prep).toMatch(/^\s+input\s+.*FASTA.*FASTQ.*gzip.*- for standard input/m);
    const dnabert = await helpText(['embed', 'dnabert'], null);
    expect(dnabert).toMatch(/^\s+--input\s+.*FASTA.*FASTQ.*gzip.*- for standard input/m);
  });
});
