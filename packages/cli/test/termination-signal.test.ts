import { describe, expect, it } from 'vitest';
import { onTerminationSignal } from '../src/termination-signal.js';

describe('onTerminationSignal', () => {
  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s flushes, then exits %i', async (signal, code) => {
    const events: string[] = [];
    let exited!: (code: number) => void;
    const exitCode = new Promise<number>((resolve) => (exited = resolve));
    const dispose = onTerminationSignal(
      async (caught) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        events.push(`flushed ${caught}`);
      },
      { exit: (c) => { events.push('exit'); exited(c); } },
    );
    process.emit(signal);
    expect(await exitCode).toBe(code);
    expect(events).toEqual([`flushed ${signal}`, 'exit']);
    dispose();
    expect(process.listenerCount(signal)).toBe(0);
  });
});
