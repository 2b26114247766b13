import { describe, expect, it } from 'vitest';
import type { FastaRecord } from '@virnucpro/fasta-stream';
import { RecordIterator } from '../src/record-iterator.js';

const rec = (id: string): FastaRecord => ({ id, description: id, sequence: 'ACGT' });

/** Batches from an async generator that notes whether it was closed, failing after `failAfter` batches if given. */
function batches(list: FastaRecord[][], failAfter?: number) {
  const state = { closed: false };
  async function* gen() {
    try {
      for (let i = 0; i < list.length; i++) {
        if (i === failAfter) throw new Error('read failed');
        await new Promise((resolve) => setTimeout(resolve, 1));
        yield list[i];
      }
    } finally {
      state.closed = true;
    }
  }
  return { source: gen(), state };
}

describe('RecordIterator (readFasta one record at a time)', () => {
  it('answers next() calls made without waiting in order, skipping empty batches', async () => {
    const { source } = batches([[rec('a'), rec('b')], [], [rec('c')]]);
    const it = new RecordIterator(source);
    const answers = await Promise.all([it.next(), it.next(), it.next(), it.next(), it.next()]);
    expect(answers.map((a) => (a.done ? 'done' : a.value.id))).toEqual(['a', 'b', 'c', 'done', 'done']);
  });

  it('closes the source on return() and break, and is done afterwards', async () => {
    const first = batches([[rec('a'), rec('b')], [rec('c')]]);
    const it = new RecordIterator(first.source);
    expect((await it.next()).value).toEqual(rec('a'));
    await it.return();
    expect(first.state.closed).toBe(true);
    expect((await it.next()).done).toBe(true);

    const second = batches([[rec('a')], [rec('b')]]);
    for await (const r of new RecordIterator(second.source)) if (r.id === 'a') break;
    expect(second.state.closed).toBe(true);
  });

  it('passes a read error to the caller once, then answers done', async () => {
    const { source } = batches([[rec('a')], [rec('b')]], 1);
    const it = new RecordIterator(source);
    expect((await it.next()).value).toEqual(rec('a'));
    const [failed, after] = await Promise.allSettled([it.next(), it.next()]);
    expect(failed.status === 'rejected' && (failed.reason as Error).message).toBe('read failed');
    expect(after.status === 'fulfilled' && after.value.done).toBe(true);
  });
});
