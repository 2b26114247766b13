import { describe, expect, it } from 'vitest';
import { startCudaDriverEarly } from '../src/early-driver.js';
import { probeCuda } from '../src/probe.js';

describe('startCudaDriverEarly', () => {
  it('is one start, whoever asks: the same promise on every call, resolved where the driver works and rejected where it does not', async () => {
    const first = startCudaDriverEarly();
    expect(startCudaDriverEarly()).toBe(first);
    const outcome = await first.then(() => 'started', (error: Error) => error.message);
    const probe = probeCuda();
    if (probe.ok && probe.devices.length > 0) expect(outcome).toBe('started');
    else expect(outcome).not.toBe('started');
  });
});
