import { concatMap, from, type OperatorFunction } from 'rxjs';
import { chunkRecord, type Chunk, type SequenceRecord } from './chunk-record.js';
import { identifyFrames, type Frame } from './identify-frames.js';

/** RxJS: each record → its chunks (`{id}_chunk_{k}`), in order. Errors on a zero-length record. */
export function chunkRecords(chunkSize: number): OperatorFunction<SequenceRecord, Chunk> {
  return concatMap((record) => from(chunkRecord(record, chunkSize)));
}

/** RxJS: each chunk → its kept six-frame translations (F1..F3, R1..R3 without stops), in order. */
export function sixFrames(): OperatorFunction<Chunk, Frame> {
  return concatMap((chunk) => from(identifyFrames(chunk.id, chunk.sequence)));
}
