import type { PoolEvent } from '@virnucpro/runtime';

/**
 * The line a user is shown when a worker process of the pool fails (killed, crashed, hung — on a GPU, often
 * the GPU failing): what happened to which worker and its device, and what the pool does about it. Undefined
 * for the events that are not failures, and for the last worker given up: the run then fails, and its one error
 * line says so (`every worker failed …`).
 */
export function workerEventWarning(event: PoolEvent): string | undefined {
  switch (event.type) {
    case 'worker-exit':
      return `worker ${event.worker} (${event.device}) ${event.reason}; ${event.requeued} unfinished ${event.requeued === 1 ? 'batch' : 'batches'} re-queued`;
    case 'restart':
      return `restarting worker ${event.worker} (${event.device}) (attempt ${event.attempt})`;
    case 'retired':
      if (event.remaining === 0) return undefined;
      return `worker ${event.worker} (${event.device}) failed too many times in a row and is not restarted again; its work goes to the remaining workers (last: ${event.reason})`;
    default:
      return undefined;
  }
}
