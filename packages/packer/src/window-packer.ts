import { firstFitDecreasing } from './first-fit-decreasing.js';
import type { PackedBatch, PackItem, WindowPackOptions } from './pack-types.js';
import { checkItem, checkWindow } from './validate.js';

/** A batch filled less than this is held back once and re-packed with the next window's items. */
const CARRY_BELOW_FILL = 0.9;

/**
 * Streaming first-fit decreasing over a bounded window: items are held until `window` of them are
 * waiting, then packed together. With carry (the default) the emptiest batch of a window, if under 90 % full,
 * is not emitted: its items rejoin the next window (at most once each, so no item waits more than two windows).
 * At the end (or on an early flush()) everything left is packed and emitted. Never holds more than `window` items.
 * With `firstWindowTokens`, the first window is packed once it holds that many tokens, if that comes before `window`
 * items (the batches, not the results, differ: a consumer idle at the start gets its first batches sooner).
 */
export class WindowPacker<T> {
  private readonly tokenBudget: number;
  private readonly window: number;
  private readonly carry: boolean;
  /** Tokens at which the window in progress is packed early: the first window's, then never. */
  private earlyAtTokens: number;
  private pendingTokens = 0;
  private pending: PackItem<T>[] = [];
  private readonly carried = new Set<number>();

  constructor(options: WindowPackOptions) {
    checkWindow(options);
    this.tokenBudget = options.tokenBudget;
    this.window = options.window;
    this.carry = options.carry ?? true;
    this.earlyAtTokens = options.firstWindowTokens ?? Infinity;
  }

  /** Items currently held back. */
  get held(): number {
    return this.pending.length;
  }

  /** Adds one item; returns the batches that became ready (often none). */
  push(item: PackItem<T>): PackedBatch<T>[] {
    checkItem(item);
    this.pending.push(item);
    this.pendingTokens += item.tokens;
    return this.pending.length >= this.window || this.pendingTokens >= this.earlyAtTokens ? this.packWindow(false) : [];
  }

  /** End of input, or a consumer that cannot wait for a full window: packs and returns everything still held. */
  flush(): PackedBatch<T>[] {
    return this.pending.length > 0 ? this.packWindow(true) : [];
  }

  private packWindow(final: boolean): PackedBatch<T>[] {
    // Carried items first: they fill the first batches, so the emptiest one holds only this window's own items and may be
    // carried in turn. Sorted among the rest, the carried items (the smallest of their window, as a rule) went to the
    // emptiest batch again and had to go out with it: one part-filled batch every other window (150-bp DNA windows at
    // a 65,536-token budget: batches 82 % full).
    const carried = this.carried;
    const batches = firstFitDecreasing(this.pending, this.tokenBudget, carried.size > 0 ? (item) => carried.has(item.index) : undefined);
    this.pending = [];
    this.pendingTokens = 0;
    this.earlyAtTokens = Infinity;
    if (final || !this.carry || batches.length < 2) {
      this.carried.clear();
      return batches;
    }
    let emptiest = -1;
    for (let i = 0; i < batches.length; i++) {
      if (emptiest === -1 || batches[i].tokens < batches[emptiest].tokens) emptiest = i;
    }
    const candidate = batches[emptiest];
    const alreadyCarried = candidate.items.some((item) => this.carried.has(item.index));
    const nowCarried = new Set<number>();
    if (candidate.tokens < CARRY_BELOW_FILL * this.tokenBudget && !alreadyCarried && candidate.items.length < this.window) {
      batches.splice(emptiest, 1);
      this.pending = candidate.items.slice();
      this.pendingTokens = candidate.tokens;
      for (const item of candidate.items) nowCarried.add(item.index);
    }
    this.carried.clear();
    for (const index of nowCarried) this.carried.add(index);
    return batches;
  }
}
