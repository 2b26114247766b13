import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';

/**
 * A text file written under a temporary name and renamed into place only by `commit()` (after fsync), so an
 * interrupted or failed run never leaves a half-written file under the real name. `write` respects the
 * stream's backpressure.
 */
export class StagedTextFile {
  private readonly temp: string;
  private readonly stream: WriteStream;
  private failed: Error | null = null;

  constructor(readonly path: string) {
    this.temp = `${path}.partial-${process.pid}`;
    this.stream = createWriteStream(this.temp);
    this.stream.on('error', (err) => (this.failed = err));
  }

  async write(text: string): Promise<void> {
    if (this.failed) throw this.failed;
    if (!this.stream.write(text)) await new Promise<void>((resolve, reject) => {
      this.stream.once('drain', resolve);
      this.stream.once('error', reject);
    });
  }

  async commit(): Promise<void> {
    await new Promise<void>((resolve, reject) => this.stream.end((err?: Error | null) => (err ? reject(err) : resolve())));
    if (this.failed) throw this.failed;
    const handle = await open(this.temp, 'r+');
    await handle.sync();
    await handle.close();
    await rename(this.temp, this.path);
  }

  async discard(): Promise<void> {
    this.stream.destroy();
    await rm(this.temp, { force: true });
  }
}
