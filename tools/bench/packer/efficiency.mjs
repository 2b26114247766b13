// Packing efficiency on real six-frame proteins. Usage (repo root, after `npx nx run @virnucpro/packer:build`
// and `npx nx run @virnucpro/fasta-stream:build`):
//   node tools/bench/packer/efficiency.mjs <genome.fa[.gz]> [chunkSize=500]
// Prints efficiency = real tokens / (batches × budget) for @virnucpro/packer (first-fit decreasing over a
// window, with carry-over) and for the original VirNucPro packer (next-fit decreasing over a 2000-item
// buffer, reference §5.4), token count = protein length + 2 (ESM-2 BOS/EOS).
import { from, lastValueFrom, toArray } from 'rxjs';
import { readFasta } from '@virnucpro/fasta-stream';
import { packArray, packBatches, packingEfficiency } from '@virnucpro/packer';
import { nextFitDecreasing } from './original-packer.mjs';
import { orfLengths } from './orf-lengths.mjs';

const [path, chunkArg] = process.argv.slice(2);
if (!path) {
  console.error('usage: node tools/bench/packer/efficiency.mjs <genome.fa[.gz]> [chunkSize=500]');
  process.exit(2);
}
const chunkSize = Number(chunkArg ?? 500);
const lengths = [];
for await (const record of readFasta(path)) lengths.push(...orfLengths(record.sequence, chunkSize));
const items = lengths.map((length, index) => ({ index, tokens: length + 2, value: index }));
const total = items.reduce((s, i) => s + i.tokens, 0);
console.log(`${path}: ${items.length} stop-free frames from ${chunkSize}-bp chunks, ${total} tokens, lengths ${Math.min(...lengths)}–${Math.max(...lengths)} aa`);


const rows = [];
for (const budget of [2048, 4096, 8192, 16384]) {
  for (const window of [500, 2000]) {
    const t0 = performance.now();
    const batches = await lastValueFrom(from(items).pipe(packBatches({ tokenBudget: budget, window }), toArray()));
    const ms = performance.now() - t0;
    const nfd = nextFitDecreasing(items, budget, window);
    const ideal = Math.ceil(total / budget);
    rows.push({
      budget,
      window,
      batches: batches.length,
      'lower bound': ideal,
      efficiency: (100 * packingEfficiency(batches)).toFixed(2) + ' %',
      'original NFD': (100 * packingEfficiency(nfd)).toFixed(2) + ' %',
      'whole-file FFD': (100 * packingEfficiency(packArray(items, { tokenBudget: budget }))).toFixed(2) + ' %',
      'pack ms': ms.toFixed(0),
    });
  }
}
console.table(rows);
