import { describe, expect, it } from 'vitest';
import { HostTrace, reportInterval } from '../src/host-trace.js';

describe('HostTrace (VIRNUCPRO_CUDA_TRACE)', () => {
  it('times wrapped native calls and counts the time the stream stood empty before the next enqueue', () => {
    let clock = 1000;
    const lines: string[] = [];
    const trace = new HostTrace((line) => lines.push(line), () => clock);
    const launch = trace.wrap('cuLaunchKernel', (ms: number) => (clock += ms));
    const query = trace.wrap('cuEventQuery', () => 0);
    launch(2); // a call that blocks the thread for 2 ms
    query();
    trace.streamDrained();
    clock += 80; // the GPU idles: nothing queued for 80 ms
    query(); // not an enqueue: the gap goes on
    launch(0); // the next enqueue ends it
    trace.streamDrained();
    clock += 5;
    trace.streamDrained(); // seen empty again: the gap still began at the first sighting
    launch(0);
    trace.stop();
    const report = lines.join('');
    expect(report).toMatch(/after 0\.1 s: stream empty 0\.09 s in 2 gaps \(longest 80\.0 ms\)/);
    expect(report).toMatch(/gaps over 50 ms: [\d:.]+ 80 ms\n/);
    expect(report).toMatch(/cuLaunchKernel: 3 calls, 0\.002 s, max 2\.00 ms, >1 ms: 1 \(0\.002 s\)/);
    expect(report).toMatch(/cuEventQuery: 2 calls/);
  });

  it('reports every 30 s, or as often as a number of milliseconds ≥ 1000 says', () => {
    expect(reportInterval('1')).toBe(30_000);
    expect(reportInterval('yes')).toBe(30_000);
    expect(reportInterval('999')).toBe(30_000);
    expect(reportInterval('2000')).toBe(2000);
  });
});
