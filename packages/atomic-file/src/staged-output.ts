/**
 * The one contract of a run's output: written under temporary names, made visible in one step, or removed. Every
 * writer of result files implements it (AtomicFile; the prediction, embedding, FASTA and prep writers), so a run
 * completes, publishes or discards its outputs alike, whatever they hold.
 */
export interface StagedOutput {
  /** Everything written is on disk (fsync), still under temporary names: a full disk fails here, nothing is visible. */
  complete(): Promise<void>;
  /** Renames the output into place (completing it first if needed) and makes that durable; what it resolves to is the writer's own. */
  publish(): Promise<unknown>;
  /** Removes whatever was written and leaves the targets as they were. Safe in any state, also after a failure. */
  discard(): Promise<void>;
}

/** Completes every output first, then publishes them in order: the set appears together, the last one last. */
export async function commitAll(outputs: readonly StagedOutput[]): Promise<void> {
  for (const output of outputs) await output.complete();
  for (const output of outputs) await output.publish();
}
