import { firstFitDecreasing } from './first-fit-decreasing.js';
import type { PackedBatch, PackItem, PackOptions } from './pack-types.js';
import { checkBudget, checkItem } from './validate.js';

/** Packs a whole array at once (first-fit decreasing over all items). Pure; the input is not modified. */
export function packArray<T>(items: readonly PackItem<T>[], options: PackOptions): PackedBatch<T>[] {
  checkBudget(options.tokenBudget);
  for (const item of items) checkItem(item);
  return firstFitDecreasing(items, options.tokenBudget);
}
