import { Observable } from 'rxjs';
import type { FastaSource } from './decoded-chunks.js';
import type { FastaRecord } from './fasta-record.js';
import { readFasta } from './index.js'; // the main entry (bundled separately: see scripts/bundle.mjs)
import type { ReadFastaOptions } from './read-fasta-blocks.js';

/**
 * RxJS source of FASTA records. Cold and lazy: the file is opened on subscribe, the next record is
 * parsed only after the subscriber's `next()` returned, and unsubscribing (e.g. `take(3)`) closes the
 * source. RxJS has no backpressure for asynchronous consumers: to pace the reader by a slow async stage,
 * consume `readFasta` as an AsyncIterable instead (or convert with `from()` at the point you need it).
 * A stream source can be subscribed once; a path can be re-subscribed (it is re-read).
 */
export function fasta$(source: FastaSource, options: ReadFastaOptions = {}): Observable<FastaRecord> {
  return new Observable<FastaRecord>((subscriber) => {
    const records = readFasta(source, options);
    let stopped = false;
    (async () => {
      try {
        for await (const record of records) {
          if (stopped) return;
          subscriber.next(record);
          if (stopped) return;
        }
        subscriber.complete();
      } catch (error) {
        if (!stopped) subscriber.error(error);
      }
    })();
    return () => {
      stopped = true;
    };
  });
}
