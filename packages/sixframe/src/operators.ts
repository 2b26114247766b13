import { NEVER, Observable, concatMap, from, type OperatorFunction } from 'rxjs';
import { chunkLayout, type ChunkSpan } from './chunk-layout.js';
import type { Chunk, SequenceRecord } from './chunk-record.js';
import { identifyFrames, type Frame } from './identify-frames.js';

/**
 * Demand from downstream: items go out only while `isOpen()`; after a `changes` emission it is asked again.
 * (`@virnucpro/runtime`'s `CreditGate` has this shape, so a pool's or `runEmbedding`'s gate paces a chain.)
 */
export interface Demand {
  isOpen(): boolean;
  readonly changes: Observable<unknown>;
}

const ALWAYS_OPEN: Demand = { isOpen: () => true, changes: NEVER };

/**
 * RxJS: each record → its chunks (`{id}_chunk_{k}`), in order. Errors (RangeError) on a zero-length record.
 *
 * With `demand`, chunks go out only while it is open, a record's chunks one by one as demand allows (cut only as
 * they go out), so a 5 Mb contig does not flood the stages below with its ~10,000 chunks at once. Give the same
 * demand to a pull-driven record source (`pull$(records, demand)` from `@virnucpro/runtime`): the source reads
 * its next record only once this one's chunks are all out, because chunks are sent synchronously for as long as
 * demand stays open and this operator hears every reopening first (it subscribed to `changes` before the source).
 * Then one record at a time is held here, whatever the input size. Without `demand`, every chunk goes out at once.
 */
export function chunkRecords(chunkSize: number, demand: Demand = ALWAYS_OPEN): OperatorFunction<SequenceRecord, Chunk> {
  return (source) =>
    new Observable<Chunk>((subscriber) => {
      /** Records received and not yet cut (more than one only when the source does not follow `demand`). */
      const waiting: SequenceRecord[] = [];
      let current: { record: SequenceRecord; spans: ChunkSpan[]; next: number } | undefined;
      let sourceDone = false;
      let sending = false;
      const send = () => {
        if (sending) return; // a re-entrant call (from downstream, during next()): the loop below goes on
        sending = true;
        try {
          while (!subscriber.closed) {
            if (!current) {
              const record = waiting.shift();
              if (!record) {
                if (sourceDone) subscriber.complete();
                return;
              }
              current = { record, spans: chunkLayout(record.sequence.length, chunkSize), next: 0 };
            }
            if (!demand.isOpen()) return; // sent on again by the next `changes`
            const { record, spans } = current;
            const k = current.next++;
            if (current.next === spans.length) current = undefined;
            subscriber.next({ id: `${record.id}_chunk_${k + 1}`, sequence: record.sequence.slice(spans[k].start, spans[k].end) });
          }
        } catch (error) {
          subscriber.error(error);
        } finally {
          sending = false;
        }
      };
      // Before the source subscribes: on a reopening, this record's chunks go first, the source's next read after.
      const wake = demand.changes.subscribe(() => send());
      const upstream = source.subscribe({
        next: (record) => {
          waiting.push(record);
          send();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          send();
        },
      });
      return () => {
        wake.unsubscribe();
        upstream.unsubscribe();
      };
    });
}

/**
 * RxJS: each chunk → its kept six-frame translations (F1..F3, R1..R3 without stops), in order. A chunk's frames
 * (at most six) go out together; what paces a record's frames is `chunkRecords` with a demand.
 */
export function sixFrames(): OperatorFunction<Chunk, Frame> {
  return concatMap((chunk) => from(identifyFrames(chunk.id, chunk.sequence)));
}
