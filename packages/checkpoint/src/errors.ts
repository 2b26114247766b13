/** The checkpoint was written for another model or another input: resuming would mix results. */
export class CheckpointMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointMismatchError';
  }
}

/** A fresh run would write into a directory that already holds results. */
export class OutputDirNotEmptyError extends Error {
  constructor(readonly dir: string) {
    super(`output directory ${dir} is not empty; pass --resume to continue that run or --force to overwrite it`);
    this.name = 'OutputDirNotEmptyError';
  }
}
