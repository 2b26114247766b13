import { FirstFitBins } from './first-fit-bins.js';
import type { PackedBatch, PackItem } from './pack-types.js';

/**
 * First-fit decreasing: items sorted by tokens (descending, ties by index), each put in the first batch
 * with room, else a new batch. An item over the budget gets a batch of its own. Deterministic.
 * Batches come out ordered by their smallest index, items inside a batch by index, so downstream
 * order restoration waits as little as possible. Items for which `placeFirst` holds are placed before all others
 * (each group in decreasing order): they land in the first batches, never alone in the last, emptiest one.
 */
export function firstFitDecreasing<T>(items: readonly PackItem<T>[], tokenBudget: number, placeFirst?: (item: PackItem<T>) => boolean): PackedBatch<T>[] {
  const rank = (item: PackItem<T>) => (placeFirst?.(item) ? 0 : 1);
  const order = items.slice().sort((a, b) => rank(a) - rank(b) || b.tokens - a.tokens || a.index - b.index);
  const bins = new FirstFitBins(order.length);
  const contents: PackItem<T>[][] = [];
  const oversize: PackedBatch<T>[] = [];
  for (const item of order) {
    if (item.tokens > tokenBudget) {
      oversize.push({ items: [item], tokens: item.tokens, tokenBudget });
      continue;
    }
    let bin = bins.firstFitting(item.tokens);
    if (bin === -1) {
      bin = bins.open(tokenBudget);
      contents.push([]);
    }
    bins.take(bin, item.tokens);
    contents[bin].push(item);
  }
  const batches = contents.map((binItems, bin) => ({
    items: binItems.sort((a, b) => a.index - b.index),
    tokens: tokenBudget - bins.remaining(bin),
    tokenBudget,
  }));
  return batches.concat(oversize).sort((a, b) => a.items[0].index - b.items[0].index);
}
