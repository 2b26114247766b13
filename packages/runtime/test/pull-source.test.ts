import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { pull$, type CreditGate } from '../src/index.js';

describe('pull$', () => {
  it('pulls one item per credit and waits for more credit before reading on', async () => {
    let credit = 3;
    const changes = new Subject<void>();
    const gate: CreditGate = { isOpen: () => credit > 0, changes };
    let pulled = 0;
    async function* source() {
      for (let i = 0; i < 10; i++) {
        pulled++;
        yield i;
      }
    }
    const seen: number[] = [];
    const finished = new Promise<void>((resolve) =>
      pull$(source(), gate).subscribe({
        next: (value) => {
          seen.push(value);
          credit--; // the consumer spends one credit per item
        },
        complete: resolve,
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen).toEqual([0, 1, 2]);
    expect(pulled).toBe(3);
    credit += 7;
    changes.next();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // Learning that the source is exhausted is itself a read: it waits for one more credit.
    let completed = false;
    void finished.then(() => (completed = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(completed).toBe(false);
    credit += 1;
    changes.next();
    await finished;
    expect(pulled).toBe(10);
  });

  it('closes the source when the subscriber unsubscribes', async () => {
    let closed = false;
    async function* source() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    }
    const subscription = pull$(source()).subscribe((value) => {
      if (value === 5) subscription.unsubscribe();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(closed).toBe(true);
  });
});
