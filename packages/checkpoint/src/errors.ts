/** The checkpoint was written for another model or another input: resuming would mix results. */
export class CheckpointMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckpointMismatchError';
  }
}
