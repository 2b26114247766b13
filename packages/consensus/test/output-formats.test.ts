// The original tool's own output files, parsed and re-printed with our formatter and consensus: the text
// must come out byte-identical.
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consensusFromRows } from '../src/index.js';
import { formatPredictionRow, PREDICTION_HEADER, parsePredictionResults } from '../src/prediction-row.js';

const data = new URL('../../../test-data/consensus/', import.meta.url);
const read = (p: string) => readFileSync(new URL(p, data), 'utf8');

const pairs: { name: string; txt: string; csv: string }[] = [];
for (const f of readdirSync(new URL('virnucpro-examples/', data))) {
  if (f.endsWith('_prediction_results.txt')) {
    const stem = f.slice(0, -'_prediction_results.txt'.length);
    pairs.push({ name: `virnucpro-examples/${stem}`, txt: `virnucpro-examples/${f}`, csv: `virnucpro-examples/${stem}_prediction_results_highestscore.csv` });
  }
}
for (const d of ['test_fixed_500bp', 'test_with_orfs']) {
  pairs.push({ name: `e2e-tiny/${d}`, txt: `e2e-tiny/${d}/prediction_results.txt`, csv: `e2e-tiny/${d}/prediction_results_highestscore.csv` });
}

describe('output formats match the original tool byte for byte', () => {
  it('found the reference files', () => expect(pairs.length).toBe(4));
  for (const p of pairs) {
    it(`${p.name}: prediction_results.txt re-printed from parsed float32 scores`, () => {
      const text = read(p.txt);
      const rows = parsePredictionResults(text, p.txt);
      expect(rows.length).toBeGreaterThan(0);
      const reprinted = PREDICTION_HEADER + rows.map((r) => formatPredictionRow(r.id, r.score1, r.score2)).join('');
      expect(reprinted).toBe(text);
    });
    it(`${p.name}: highestscore csv from the txt rows`, () => {
      const rows = parsePredictionResults(read(p.txt), p.txt);
      expect(consensusFromRows(rows)).toBe(read(p.csv));
    });
  }
});
