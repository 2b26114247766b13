/**
 * Running out of GPU memory on a batch is not an error of the run: the batch is embedded in two halves
 * instead, each split again if it still does not fit, down to one sequence. The cuda backend throws
 * `CudaOutOfMemoryError`; it is recognised by name so that an error from another copy of the package counts.
 */
export function isOutOfMemory(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'CudaOutOfMemoryError';
}

/** A single sequence that does not fit in GPU memory even alone: splitting cannot help. */
export class SequenceTooLargeError extends Error {
  override readonly name = 'SequenceTooLargeError';
}

/** The error for `what` (a record, named) that ran out of GPU memory alone: `error` is the out-of-memory error. */
export function sequenceTooLarge(what: string, error: Error): SequenceTooLargeError {
  return new SequenceTooLargeError(
    `out of GPU memory embedding ${what} on its own (${error.message}); it does not fit on this GPU even alone: use a GPU with more memory, or fp16/bf16 precision`,
  );
}

export interface OomSplitOptions<T> {
  /** Called once per batch split in two after running out of memory. */
  onSplit(): void;
  /** Names an item in the error when one alone does not fit (e.g. its id and length). */
  describe(item: T): string;
}

/**
 * `embed(items)`, splitting the batch in halves (recursively) whenever it throws CudaOutOfMemoryError. The
 * vectors come back in the order of `items`, as one call would return them. Other errors pass through.
 */
export async function embedSplittingOnOom<T>(
  items: T[],
  embed: (items: T[]) => Promise<Float32Array[]>,
  options: OomSplitOptions<T>,
): Promise<Float32Array[]> {
  try {
    return await embed(items);
  } catch (error) {
    if (!isOutOfMemory(error)) throw error;
    if (items.length <= 1) {
      const what = items.length === 1 ? options.describe(items[0]) : 'an empty batch';
      throw sequenceTooLarge(what, error as Error);
    }
    options.onSplit();
    const middle = Math.ceil(items.length / 2);
    const first = await embedSplittingOnOom(items.slice(0, middle), embed, options);
    const second = await embedSplittingOnOom(items.slice(middle), embed, options);
    return [...first, ...second];
  }
}
