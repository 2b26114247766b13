// Packing efficiency on the proteins written by our real chunking + six-frame stage (`virnucpro prep`):
//   node packages/cli/bin/virnucpro.js prep ECOLI.fa --length 300 --out-dir /tmp/ecoli300
//   node tools/bench/packer/prep-efficiency.mjs /tmp/ecoli300/ecoli_identified_protein.faa [more.faa ...]
// Tokens per ESM-2 sequence = protein length + 2 (BOS/EOS). Efficiency = real tokens / (batches × budget).
// Compares @virnucpro/packer's streaming packBatches (window FFD with carry-over), whole-file packArray (FFD)
// and the original VirNucPro packer (next-fit decreasing over 2000-item buffers). Needs packer and
// fasta-stream built.
import { from, lastValueFrom, toArray } from 'rxjs';
import { readFastaBatches } from '@virnucpro/fasta-stream';
import { packArray, packBatches, packingEfficiency } from '@virnucpro/packer';
import { nextFitDecreasing } from './original-packer.mjs';

const pct = (x) => (100 * x).toFixed(2) + ' %';

for (const path of process.argv.slice(2)) {
  const lengths = [];
  for await (const batch of readFastaBatches(path)) for (const r of batch) lengths.push(r.sequence.length);
  const items = lengths.map((length, index) => ({ index, tokens: length + 2, value: index }));
  const total = items.reduce((s, i) => s + i.tokens, 0);
  const hist = new Map();
  for (const l of lengths) hist.set(l, (hist.get(l) ?? 0) + 1);
  const common = [...hist].sort((a, b) => b[1] - a[1]).slice(0, 4).map(([l, c]) => `${l} aa ×${c}`).join(', ');
  console.log(`\n${path}: ${items.length} proteins, ${total} tokens (incl. BOS/EOS), ${Math.min(...lengths)}–${Math.max(...lengths)} aa; most common: ${common}`);
  const rows = [];
  for (const budget of [2048, 4096, 8192]) {
    const ffd = packArray(items, { tokenBudget: budget });
    for (const window of [500, 2000, 10000]) {
      const t0 = performance.now();
      const batches = await lastValueFrom(from(items).pipe(packBatches({ tokenBudget: budget, window }), toArray()));
      const ms = performance.now() - t0;
      const seen = batches.reduce((s, b) => s + b.items.length, 0);
      if (seen !== items.length) throw new Error(`lost items: ${seen} != ${items.length}`);
      rows.push({
        budget,
        window,
        batches: batches.length,
        'lower bound': Math.ceil(total / budget),
        'packBatches eff.': pct(packingEfficiency(batches)),
        'packArray (whole file)': pct(packingEfficiency(ffd)),
        'original NFD': pct(packingEfficiency(nextFitDecreasing(items, budget, window))),
        'pack ms': ms.toFixed(0),
      });
    }
  }
  console.table(rows);
}
