import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { AtomicFile, commitAll, type StagedOutput } from '@virnucpro/atomic-file';
import { CHECKPOINT_DIR } from './stop-signals.js';

/** run_summary.json: written last, so a folder that has it holds a complete run. */
export const RUN_SUMMARY_FILE = 'run_summary.json';

/**
 * What a run of `predict` leaves in its folder, published as one: each result file is staged (written under a
 * temporary name) as it is opened; at the end all are put on disk (fsync; a full disk fails there, with nothing
 * visible yet) and renamed into place together, run_summary.json last. A run that fails or is stopped leaves no
 * trace but checkpoints that hold work (what --resume is for), and removes the folder if it made it.
 */
export class RunOutputs {
  private readonly staged: StagedOutput[] = [];
  private marker?: AtomicFile;

  constructor(
    private readonly outDir: string,
    private readonly outDirExisted: boolean,
  ) {}

  /** A result file of the run (the prediction files; the intermediates with --keep-intermediate), as opened. */
  add<T extends StagedOutput>(output: T): T {
    this.staged.push(output);
    return output;
  }

  /** Every result file written and fsynced under its temporary name (all at once: each waits on its own disk writes). */
  async complete(): Promise<void> {
    const failure = (await Promise.allSettled(this.staged.map((output) => output.complete()))).find((r) => r.status === 'rejected');
    if (failure) throw failure.reason;
  }

  /** run_summary.json written, then every file renamed into place, it last. */
  async publish(summary: unknown): Promise<void> {
    this.marker = await AtomicFile.create(join(this.outDir, RUN_SUMMARY_FILE));
    await this.marker.write(JSON.stringify(summary, null, 2) + '\n');
    await commitAll([...this.staged, this.marker]);
  }

  /**
   * Nothing published: the staged files removed, the checkpoint folder too unless it holds work (before the
   * checkpoint is open, e.g. a refused --resume, `checkpoint` is undefined and the folder is not ours to touch),
   * and the output folder if this run created it.
   */
  async discard(checkpoint: { itemsStored: number } | undefined): Promise<void> {
    for (const output of [...this.staged, ...(this.marker ? [this.marker] : [])]) await output.discard().catch(() => undefined);
    if (checkpoint && checkpoint.itemsStored === 0) await rm(join(this.outDir, CHECKPOINT_DIR), { recursive: true, force: true });
    await this.removeCreatedOutDir();
  }

  /** The output folder removed if this run created it (and it is still empty). */
  removeCreatedOutDir(): Promise<void> {
    return this.outDirExisted ? Promise.resolve() : rmdir(this.outDir).catch(() => undefined);
  }
}
