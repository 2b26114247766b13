// Packing efficiency of DNA windows as `virnucpro embed dnabert` packs them: windows of 150 / 300 / 500 bp cut at
// random from phage lambda and E. coli 536 (test-data, the slices run-embed-vs-compiled.sh cuts from), tokens = the
// DNABERT-S BPE's ids ([CLS] and [SEP] included, test-data/dnabert/tokenizer.json), streamed through the command's
// packing (token budget 65,536, window packWindowFor(65,536, 1024) = 4,096, the first window at two batches' tokens)
// against whole-input first-fit decreasing. Efficiency = real tokens / (batches × budget). Needs packer and dnabert
// built.   node tools/bench/packer/dna-windows-efficiency.mjs [--windows 150000] [--lengths 150,300,500]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { BpeTokenizer } from '@virnucpro/dnabert';
import { WindowPacker, packArray, packingEfficiency } from '@virnucpro/packer';

const { values: args } = parseArgs({ options: { windows: { type: 'string', default: '150000' }, lengths: { type: 'string', default: '150,300,500' } } });
const genome = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('').toUpperCase();
const sources = [genome('test-data/lambda_virus.fa'), genome('test-data/ecoli536_1-30000.fa')];
const tokenizer = await BpeTokenizer.fromFile('test-data/dnabert/tokenizer.json');
const budget = 65_536;
const window = Math.max(1024, Math.ceil(budget / 16));
let seed = 47;
const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);

const rows = [];
for (const bp of args.lengths.split(',').map(Number)) {
  const count = Math.round((Number(args.windows) * 150) / bp);
  const items = Array.from({ length: count }, (_, index) => {
    const source = sources[Math.floor(random() * sources.length)];
    const start = Math.floor(random() * (source.length - bp));
    return { index, tokens: tokenizer.encode(source.slice(start, start + bp)).length, value: index };
  });
  const packer = new WindowPacker({ tokenBudget: budget, window, firstWindowTokens: 2 * budget });
  const streamed = items.flatMap((item) => packer.push(item)).concat(packer.flush());
  const whole = packArray(items, { tokenBudget: budget });
  const tokens = items.reduce((sum, item) => sum + item.tokens, 0);
  rows.push({
    windows: `${bp} bp`,
    count,
    'tokens (mean)': (tokens / count).toFixed(1),
    'streamed batches': streamed.length,
    'streamed eff.': `${(100 * packingEfficiency(streamed)).toFixed(2)} %`,
    'whole-input batches': whole.length,
    'whole-input eff.': `${(100 * packingEfficiency(whole)).toFixed(2)} %`,
    'lower bound': Math.ceil(tokens / budget),
  });
}
console.table(rows);
