import type { PoolEvent } from '@virnucpro/runtime';

/**
 * The line a user is shown when a worker process of the pool fails (killed, crashed, hung — on a GPU, often
 * the GPU failing): what happened to which worker and its device, and what the pool does about it. Undefined
 * for the events that are not failures.
 */
export function workerEventWarning(event: PoolEvent): string | undefined {
  switch (event.type) {
    case 'worker-exit':
      return `worker ${event.worker} (${event.device}) ${event.reason}; ${event.requeued} unfinished ${event.requeued === 1 ? 'batch' : 'batches'} re-queued`;
    case 'restart':
      return `restarting worker ${event.worker} (${event.device}) (attempt ${event.attempt})`;
    case 'retired':
      return `worker ${event.worker} (${event.device}) failed too many times in a row and is not restarted again; its work goes to the remaining workers (last: ${event.reason})`;
    default:
      return undefined;
  }
}
