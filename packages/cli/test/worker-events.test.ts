// The stderr lines of predict when a worker process fails (the CLI test predict-worker-kill shows the first two
// in a real run; a worker given up needs a GPU that keeps failing, shown here from the pool's event).
import { describe, expect, it } from 'vitest';
import { workerEventWarning } from '../src/progress/worker-events.js';

describe('workerEventWarning', () => {
  it('says which worker and device failed, why, and what the pool does about it', () => {
    expect(workerEventWarning({ type: 'worker-exit', worker: 1, device: 'cuda:1', pid: 42, reason: 'killed by SIGKILL', requeued: 1 })).toBe(
      'worker 1 (cuda:1) killed by SIGKILL; 1 unfinished batch re-queued',
    );
    expect(workerEventWarning({ type: 'worker-exit', worker: 0, device: 'cuda:0', pid: 7, reason: 'sent no heartbeat for 120500 ms (hung)', requeued: 0 })).toBe(
      'worker 0 (cuda:0) sent no heartbeat for 120500 ms (hung); 0 unfinished batches re-queued',
    );
    expect(workerEventWarning({ type: 'restart', worker: 1, device: 'cuda:1', attempt: 2 })).toBe('restarting worker 1 (cuda:1) (attempt 2)');
    expect(workerEventWarning({ type: 'retired', worker: 3, device: 'cuda:3', reason: 'exited with code 1', remaining: 2 })).toBe(
      'worker 3 (cuda:3) failed too many times in a row and is not restarted again; its work goes to the remaining workers (last: exited with code 1)',
    );
  });

  it('leaves the last worker given up to the run\'s error line (no "remaining workers" when there are none)', () => {
    expect(workerEventWarning({ type: 'retired', worker: 0, device: 'cuda:0', reason: 'exited with code 1', remaining: 0 })).toBeUndefined();
  });

  it('is silent for the events of a healthy run', () => {
    expect(workerEventWarning({ type: 'batch', worker: 0, items: 3, tokens: 500, seconds: 0.1 })).toBeUndefined();
    expect(workerEventWarning({ type: 'ready', worker: 0, device: 'cpu:0', pid: 1, seconds: 0.2 })).toBeUndefined();
  });
});
