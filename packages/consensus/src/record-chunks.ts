// Per-record chunk calls, assembled from frame scores as they stream by (input order).
//
// Declared records (declare(id, layout) before their frames, in input order, as a reader cutting the input does)
// are finished as soon as a frame of a later record arrives, so memory stays O(one record's chunks) plus the
// records declared but not reached yet; chunks that never got a frame come out `unscored`. Without
// declarations, records are inferred from the frame ids (the id before the last `_chunk_`) and all kept until
// `finish()` (frames of one record need not be adjacent then, as in a features file).

import { chunkCall, type ChunkCall, type ChunkInterval, type RecordCalls, type RecordFacts } from './chunk-calls.js';
import { consensusKey, type ConsensusKeyRule } from './consensus.js';
import { originalSequenceId } from './sequence-summary.js';

const CHUNK_MARK = '_chunk_';

class RecordState {
  readonly frames: Uint32Array;
  readonly max1: Float32Array;
  readonly max2: Float32Array;
  readonly bestFrame: string[];
  /** Chunks seen (undeclared records grow as frames come). */
  size: number;

  constructor(
    readonly id: string,
    readonly layout: readonly ChunkInterval[] | undefined,
    capacity: number,
    readonly declared: boolean,
    readonly facts: RecordFacts & { length?: number } = {},
  ) {
    this.frames = new Uint32Array(capacity);
    this.max1 = new Float32Array(capacity).fill(NaN);
    this.max2 = new Float32Array(capacity).fill(NaN);
    this.bestFrame = new Array<string>(capacity).fill('');
    this.size = declared ? capacity : 0;
  }

  add(k: number, frame: string, score1: number, score2: number): void {
    this.frames[k]++;
    if (!Number.isNaN(score1) && !(score1 <= this.max1[k])) this.max1[k] = score1;
    if (!Number.isNaN(score2) && !(Math.fround(score2) <= this.max2[k])) {
      this.max2[k] = score2;
      this.bestFrame[k] = frame;
    }
    if (k >= this.size) this.size = k + 1;
  }

  calls(): RecordCalls {
    const chunks: ChunkCall[] = [];
    for (let k = 0; k < this.size; k++) {
      const frames = this.frames[k];
      if (!this.declared && frames === 0) continue; // an undeclared record knows only its scored chunks
      const span = this.layout?.[k];
      chunks.push({
        id: `${this.id}${CHUNK_MARK}${k + 1}`,
        ...(span ? { start: span.start + 1, end: span.end } : {}),
        frames,
        bestVirusScore: frames > 0 ? this.max2[k] : NaN,
        bestFrame: frames > 0 ? this.bestFrame[k] : '',
        call: chunkCall(frames, this.max1[k], this.max2[k]),
      });
    }
    const length = this.layout ? this.layout[this.layout.length - 1].end : this.facts.length;
    return {
      id: this.id,
      ...(length !== undefined ? { length } : {}),
      chunks,
      ...(this.facts.nBases !== undefined ? { nBases: this.facts.nBases } : {}),
      ...(this.facts.skipped ? { skipped: true } : {}),
    };
  }
}

/**
 * A record declared but not reached yet. Records are declared as the input is read and reached as their frames are
 * written, which in a run is thousands of frames later: its state (three typed arrays and an array) is made only
 * when it is reached, so what waits in between is this and its layout, not objects that would outlive the young
 * generation and die in the old one (issue 46: the main process's heap grew with the length of a run).
 */
interface Declared {
  readonly id: string;
  readonly layout: readonly ChunkInterval[] | undefined;
  readonly chunks: number;
  readonly facts: RecordFacts & { length?: number };
}

/** A frame id that matches no declared record (or a chunk past its record's layout). */
export class UndeclaredFrameError extends Error {
  override readonly name = 'UndeclaredFrameError';
}

export class RecordChunksCollector {
  private readonly pending: Declared[] = [];
  private head = 0;
  private current: RecordState | undefined;
  private readonly undeclared = new Map<string, RecordState>();
  private declaredAny = false;

  constructor(private readonly rule: ConsensusKeyRule = 'original') {}

  /** A record with its chunk layout (`[start, end)` per chunk, 0-based), in input order, before its frames. */
  declare(id: string, layout: readonly ChunkInterval[], facts: RecordFacts = {}): void {
    if (layout.length === 0) throw new RangeError(`record ${id}: a chunk layout has at least one chunk`);
    this.declaredAny = true;
    // Not `{ ...facts, skipped: false }`: V8 (Node 20) gave each object so made a hidden class of its own, ~2,000
    // records waiting (issue 46: a Map and its descriptors a record, made in the old space).
    this.pending.push({ id, layout, chunks: layout.length, facts: { nBases: facts.nBases, skipped: false } });
  }

  /** A record of `length` bases that the run skipped (in input order): no chunks, no frames; its summary row says so. */
  declareSkipped(id: string, length: number, facts: RecordFacts = {}): void {
    this.declaredAny = true;
    this.pending.push({ id, layout: undefined, chunks: 0, facts: { nBases: facts.nBases, length, skipped: true } });
  }

  /** A record cut into `chunks` chunks whose coordinates are not known (chunk_scores and regions need them). */
  declareCount(id: string, chunks: number): void {
    this.declaredAny = true;
    this.pending.push({ id, layout: undefined, chunks, facts: {} });
  }

  get declaring(): boolean {
    return this.declaredAny;
  }

  /** One frame's scores; returns the records this frame showed to be finished (declared mode), in order. */
  add(frameId: string, score1: number, score2: number): RecordCalls[] {
    const key = consensusKey(frameId, this.rule);
    const frame = frameId.slice(key.length);
    const recordId = originalSequenceId(key);
    const k = chunkIndex(key, recordId);
    if (!this.declaredAny) {
      let state = this.undeclared.get(recordId);
      if (!state) this.undeclared.set(recordId, (state = new RecordState(recordId, undefined, 0, false)));
      this.addUndeclared(state, k, frame, score1, score2);
      return [];
    }
    const finished: RecordCalls[] = [];
    if (this.current?.id !== recordId) {
      let at = this.head;
      while (at < this.pending.length && this.pending[at].id !== recordId) at++;
      if (at === this.pending.length) {
        throw new UndeclaredFrameError(
          `frame '${frameId}' belongs to record '${recordId}', which was not declared before its frames (or its frames are not in input order)`,
        );
      }
      if (this.current) finished.push(this.current.calls());
      // Count the records passed over: takeNext may compact `pending`, which moves `at`'s index.
      for (let skipped = at - this.head; skipped > 0; skipped--) finished.push(this.takeNext().calls());
      this.current = this.takeNext();
    }
    const state = this.current!;
    if (k === undefined || k >= state.size) {
      throw new UndeclaredFrameError(`frame '${frameId}': record '${recordId}' was declared with ${state.size} chunk(s)`);
    }
    state.add(k, frame, score1, score2);
    return finished;
  }

  /** Every record not returned yet (declared ones with no frame left come out all `unscored`). */
  finish(): RecordCalls[] {
    if (!this.declaredAny) return [...this.undeclared.values()].map((s) => s.calls());
    const out: RecordCalls[] = [];
    if (this.current) out.push(this.current.calls());
    this.current = undefined;
    while (this.head < this.pending.length) out.push(this.takeNext().calls());
    return out;
  }

  private takeNext(): RecordState {
    const next = this.pending[this.head];
    this.pending[this.head++] = undefined as unknown as Declared; // let it go
    if (this.head > 1024 && this.head * 2 > this.pending.length) {
      this.pending.splice(0, this.head);
      this.head = 0;
    }
    return new RecordState(next.id, next.layout, next.chunks, true, next.facts);
  }

  private addUndeclared(state: RecordState, k: number | undefined, frame: string, score1: number, score2: number): void {
    // Undeclared records grow; ids without `_chunk_<k>` are one chunk of their own.
    const index = k ?? 0;
    if (index >= state.frames.length) {
      const grown = new RecordState(state.id, undefined, Math.max(index + 1, state.frames.length * 2, 4), false);
      grown.frames.set(state.frames);
      grown.max1.set(state.max1);
      grown.max2.set(state.max2);
      state.bestFrame.forEach((f, i) => (grown.bestFrame[i] = f));
      grown.size = state.size;
      this.undeclared.set(state.id, grown);
      state = grown;
    }
    state.add(index, frame, score1, score2);
  }
}

/** 0-based chunk index from `{record}_chunk_{k}`, or undefined when the key has no such suffix. */
function chunkIndex(key: string, recordId: string): number | undefined {
  if (key.length === recordId.length) return undefined;
  const digits = key.slice(recordId.length + CHUNK_MARK.length);
  if (!/^[1-9][0-9]*$/.test(digits)) return undefined;
  return Number(digits) - 1;
}
