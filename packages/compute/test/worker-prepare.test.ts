import { describe, expect, it } from 'vitest';
import { prepareWorkerCompute } from '../src/worker-prepare.js';

describe('prepareWorkerCompute (a worker plugin\'s prepare)', () => {
  it('begins nothing for the CPU backends, and on a machine without the CUDA driver neither throws nor leaves a rejection behind', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      for (const backend of ['cpu', 'wasm', 'onednn', 'cuda'] as const) expect(() => prepareWorkerCompute({ compute: { backend } })).not.toThrow();
      expect(() => prepareWorkerCompute({})).not.toThrow();
      await new Promise((resolve) => setTimeout(resolve, 200)); // the driver's start, where there is none, has failed by now
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
