import type { PackItem, WindowPackOptions } from './pack-types.js';

export function checkBudget(tokenBudget: number): void {
  if (!Number.isFinite(tokenBudget) || tokenBudget <= 0) throw new RangeError(`tokenBudget must be a positive number, got ${tokenBudget}`);
}

export function checkWindow(options: WindowPackOptions): void {
  checkBudget(options.tokenBudget);
  if (!Number.isInteger(options.window) || options.window < 1) throw new RangeError(`window must be a whole number ≥ 1, got ${options.window}`);
  const first = options.firstWindowTokens;
  if (first !== undefined && !(first > 0)) throw new RangeError(`firstWindowTokens must be a positive number, got ${first}`);
}

export function checkItem(item: PackItem<unknown>): void {
  if (!Number.isFinite(item.tokens) || item.tokens < 0) {
    throw new RangeError(`item ${item.index}: tokens must be a finite number ≥ 0, got ${item.tokens}`);
  }
}
