/** One sequence to pack: its position in the input stream (0-based, consecutive), its token count, its payload. */
export interface PackItem<T> {
  index: number;
  tokens: number;
  value: T;
}

/** Items that go through the model together; `tokens` = Σ item tokens ≤ `tokenBudget` unless one oversize item. */
export interface PackedBatch<T> {
  items: PackItem<T>[];
  tokens: number;
  tokenBudget: number;
}

export interface PackOptions {
  /** Maximum tokens per batch (an item longer than this is batched alone). */
  tokenBudget: number;
}

export interface WindowPackOptions extends PackOptions {
  /** How many items may be held back to choose from (memory and latency bound). */
  window: number;
  /**
   * Hold the emptiest batch of a window back once, to re-pack it with the next window's items (default true).
   * false: every window is packed on its own, exactly as `packArray` packs it.
   */
  carry?: boolean;
  /**
   * The first window is packed as soon as it holds this many tokens, before `window` items if that comes first: a
   * consumer that starts idle (a GPU) gets its first batches while the rest of a long window would still be read.
   * Later windows are unchanged. Default: none (the first window waits for `window` items like the others).
   */
  firstWindowTokens?: number;
}
