/**
 * A run that started before its input was counted (a fresh `predict`: the compute does not wait for the count), and
 * the count, both to their end. A malformed input found while frames are computed stops the workers (`stopRun`) and
 * fails at once with the count's error, as when the input was read first: the batches the workers had are not
 * waited for, and the caller discards what the run wrote, as for any failed run. (A run that fails first fails
 * with its own error; the caller's failure path waits for the count, whose error wins.)
 */
export async function runBesideCount<R, C>(run: Promise<R>, counting: Promise<C>, stopRun: () => Promise<void>): Promise<[R, C]> {
  let runEnded = false;
  const ended = () => {
    runEnded = true;
  };
  run.then(ended, ended);
  const countFailed = counting.then(
    () => new Promise<never>(() => {}), // counted: the run decides when the race ends
    async (err: unknown) => {
      if (!runEnded) await stopRun().catch(() => undefined);
      throw err;
    },
  );
  const result = await Promise.race([run, countFailed]);
  return [result, await counting];
}
