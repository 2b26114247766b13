// yargs' failures as one `virnucpro: …` line with what to do (issue 29): a misspelt option gets the closest one, an
// extra input file a clear word, a bad choice the choices; exit 2 every time.
import { describe, expect, it } from 'vitest';
import { closest } from '../src/usage-failure.js';
import { runCli } from './cli-harness.js';

describe('command-line mistakes', () => {
  it.each([
    [['predict', 'a.fa', '--lenght', '300', '--out-dir', 'o'], 'virnucpro: unknown option --lenght (did you mean --length?); see virnucpro predict --help'],
    // yargs also lists the camel-case twin it made of a misspelt kebab-case option (modelTyp): one mistake, one word.
    [['predict', 'a.fa', '--model-typ', '300', '--out-dir', 'o'], 'virnucpro: unknown option --model-typ (did you mean --model-type?); see virnucpro predict --help'],
    [['predict', 'a.fa', 'b.fa', '--out-dir', 'o'], "virnucpro: unexpected extra argument 'b.fa': predict reads one input file (several: concatenate them, e.g. cat a.fa b.fa | virnucpro predict -, or run one predict each); see virnucpro predict --help"],
    [['predict', 'a.fa', '--model-type', '400', '--out-dir', 'o'], 'virnucpro: --model-type 400 is not one of 300, 500; see virnucpro predict --help'],
    [['prep'], 'virnucpro: missing the input file; see virnucpro prep --help'],
    [['embed', 'esm2', '--model', 'm'], 'virnucpro: missing --input, --output; see virnucpro embed esm2 --help'],
    [['embed'], 'virnucpro: name a model: esm2 or dnabert; see virnucpro embed --help'],
    [['embed', 'esm3'], "virnucpro: unknown embed command 'esm3' (did you mean esm2?); see virnucpro embed --help"],
    [['predct', 'a.fa'], "virnucpro: unknown command 'predct' (did you mean predict?); virnucpro --help lists the commands"],
    [['frobnicate'], "virnucpro: unknown command 'frobnicate'; virnucpro --help lists the commands"],
    [[], 'virnucpro: name a command; virnucpro --help lists them'],
    [['models', 'lst'], 'virnucpro: action lst is not one of download, check; see virnucpro models --help'],
  ])('%j', (args, line) => {
    const r = runCli(args);
    expect(r.stderr.trim().split('\n')).toEqual([line]);
    expect(r.status).toBe(2);
  });
});

describe('closest', () => {
  it('finds a near option (a swap counts as one edit) and nothing for a far one', () => {
    expect(closest('lenght', ['length', 'out-dir', 'models-dir'])).toBe('length');
    expect(closest('outdir', ['length', 'out-dir'])).toBe('out-dir');
    expect(closest('banana', ['length', 'out-dir'])).toBeUndefined();
  });
});
