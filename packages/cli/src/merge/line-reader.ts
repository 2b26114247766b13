import { createReadStream } from 'node:fs';
import { createInterface, type Interface } from 'node:readline';

/** A text file line by line (without the newline), with one line of look-ahead; for merging sorted files. */
export class LineReader {
  private readonly rl: Interface;
  private readonly lines: AsyncIterator<string>;
  private ahead: string | undefined;
  private peeked = false;
  /** 1-based number of the last line returned by next(). */
  lineNumber = 0;

  constructor(readonly path: string) {
    this.rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    this.lines = this.rl[Symbol.asyncIterator]();
  }

  /** The next line without taking it; undefined at the end of the file. */
  async peek(): Promise<string | undefined> {
    if (!this.peeked) {
      const next = await this.lines.next();
      this.ahead = next.done ? undefined : next.value;
      this.peeked = true;
    }
    return this.ahead;
  }

  async next(): Promise<string | undefined> {
    const line = await this.peek();
    this.peeked = false;
    if (line !== undefined) this.lineNumber++;
    return line;
  }

  close(): void {
    this.rl.close();
  }
}
