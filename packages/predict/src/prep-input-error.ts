/**
 * The input cannot be prepared: missing or unreadable, empty, not FASTA, or holding a record the original tool
 * cannot process. `code` is 'BAD_INPUT' so command runners map it to exit code 2; the message names the file
 * and, where known, the 1-based line.
 */
export class PrepInputError extends Error {
  override readonly name = 'PrepInputError';
  readonly code = 'BAD_INPUT';
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    problem: string,
  ) {
    super(line === undefined ? `${file}: ${problem}` : `${file}: line ${line}: ${problem}`);
  }
}
