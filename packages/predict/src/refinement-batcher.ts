import { esmTokenCount, type FrameItem } from './frame-item.js';

/**
 * Joins the refinement requests of consecutive written batches into fuller GPU batches. With 150-bp reads and the
 * 300-bp model ~1.7 % of frames lie near 0.5: ~4 of a batch's 256, and 1M frames refined batch by batch made
 * 3,857 batches of ~4 frames that ran mostly launches (H100: 401 s against 312 s without). A request waits until
 * `batchTokens` ESM-2 tokens are gathered, or until the reader is blocked on it (whileBlocked), so nothing waits
 * for frames that cannot come. Each frame's features are those it gets alone (batch-invariant kernels).
 */
export class RefinementBatcher {
  private waiting: { frames: FrameItem[]; turn: number; resolve(vectors: Float32Array[]): void; reject(error: unknown): void }[] = [];
  private tokens = 0;
  /** The reader waits for the requests of turns up to this one (-1: for none). */
  private blockedThrough = -1;

  constructor(
    private readonly score: (frames: FrameItem[]) => Promise<Float32Array[]>,
    private readonly batchTokens: number,
  ) {}

  /** The features of `frames`, of the caller's `turn` (its MLP batch, counted from 0), once they go out with the others gathered. */
  request(frames: FrameItem[], turn: number): Promise<Float32Array[]> {
    const vectors = new Promise<Float32Array[]>((resolve, reject) => this.waiting.push({ frames, turn, resolve, reject }));
    for (const frame of frames) this.tokens += esmTokenCount(frame);
    if (turn <= this.blockedThrough || this.tokens >= this.batchTokens) this.flush();
    return vectors;
  }

  /** Sends every waiting request now, as one refinement. */
  flush(): void {
    if (this.waiting.length === 0) return;
    const requests = this.waiting;
    this.waiting = [];
    this.tokens = 0;
    this.score(requests.flatMap((r) => r.frames)).then(
      (vectors) => {
        let at = 0;
        for (const r of requests) {
          r.resolve(vectors.slice(at, at + r.frames.length));
          at += r.frames.length;
        }
      },
      (error: unknown) => requests.forEach((r) => r.reject(error)),
    );
  }

  /**
   * Awaits `wait`, which needs the requests of turns up to `turn`: those (and all waiting with them) go out now, or
   * as soon as they are made; the caller reads nothing more until then. A turn already served sends nothing, so the
   * gathering goes on.
   */
  async whileBlocked<T>(wait: Promise<T>, turn: number): Promise<T> {
    const before = this.blockedThrough;
    this.blockedThrough = Math.max(before, turn);
    if (this.waiting.some((r) => r.turn <= turn)) this.flush();
    try {
      return await wait;
    } finally {
      this.blockedThrough = before;
    }
  }
}
