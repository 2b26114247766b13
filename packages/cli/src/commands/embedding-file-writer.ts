import { open, rm, type FileHandle } from 'node:fs/promises';
import { AtomicFile, namingFile, tempPathFor, type StagedOutput } from '@virnucpro/atomic-file';
import { encodeSafetensorsHeader } from '@virnucpro/weights';

/** Bytes copied per read from the scratch file into the output. */
const COPY_BYTES = 1 << 22;
/**
 * Vectors are gathered into a block of this size and the scratch file gets one write per block: a write per 3 KB
 * vector, each awaited, was a third of `embed dnabert`'s main thread (issue 47).
 */
const BLOCK_BYTES = 1 << 20;
/**
 * Block writes under way at once, each at its own offset, before append waits for the oldest. A write's end is seen
 * once a turn of the event loop, and a turn can bring two batches of results (~12 MB of 150-bp windows at the
 * default budget): waiting for each block's write, the writer took one block a turn and fell behind, and the results
 * waiting for it grew with the input (embed-host, 100,000 windows: 9,216 appended of 94,816 read; 4 in flight:
 * 36,864; 32: 94,816 of 98,912).
 */
const WRITES_IN_FLIGHT = 32;

/**
 * Writes an `embeddings` float32 [N, dim] safetensors file without holding N vectors in memory:
 * vectors stream through reused blocks into a scratch file; complete() writes the header (@virnucpro/weights'
 * encoder; N and the `__metadata__` with the ids are only known then: `metadata()` is asked at that point) and then
 * the vectors into an AtomicFile, fsynced; publish() renames it into place (a StagedOutput; commit() does both).
 * discard() removes both, so a failed or interrupted run leaves no partial output.
 */
export class EmbeddingFileWriter implements StagedOutput {
  /** Named like any temporary file (@virnucpro/atomic-file), so a killed run's scratch is cleaned up too. */
  private readonly scratchPath: string;
  private scratch: FileHandle | undefined;
  /** Vector bytes not yet handed to a write: `block[0, used)`. */
  private block: Uint8Array | undefined;
  private used = 0;
  /** Bytes handed to writes so far: where the next block goes in the scratch file. */
  private handedOver = 0;
  /** Block writes under way, oldest first; each resolves to its block, to be filled again. */
  private writes: Promise<Uint8Array>[] = [];
  private readonly spareBlocks: Uint8Array[] = [];
  private output: AtomicFile | undefined;
  private count = 0;
  private completed = false;

  constructor(
    readonly path: string,
    readonly dim: number,
    private readonly metadata: () => Record<string, string> = () => ({}),
  ) {
    this.scratchPath = tempPathFor(path);
  }

  get rows(): number {
    return this.count;
  }

  /** Appends one vector; the caller awaits each before the next. */
  async append(vector: Float32Array): Promise<void> {
    if (vector.length !== this.dim) throw new Error(`embedding has ${vector.length} values, expected ${this.dim}`);
    try {
      this.scratch ??= await open(this.scratchPath, 'wx+');
      this.block ??= this.spareBlocks.pop() ?? new Uint8Array(BLOCK_BYTES);
      // safetensors is little-endian, as is every platform Node runs on (checked in complete()).
      const bytes = new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength);
      for (let done = 0; done < bytes.length; ) {
        const n = Math.min(bytes.length - done, BLOCK_BYTES - this.used);
        this.block!.set(n === bytes.length ? bytes : bytes.subarray(done, done + n), this.used);
        this.used += n;
        done += n;
        if (this.used === BLOCK_BYTES) {
          await this.flush();
          this.block = this.spareBlocks.pop() ?? new Uint8Array(BLOCK_BYTES);
        }
      }
    } catch (error) {
      throw namingFile(this.path, error);
    }
    this.count++;
  }

  /** Hands the block to a write at its offset; waits for the oldest write only when WRITES_IN_FLIGHT are under way. */
  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const block = this.block!;
    const write = writeAt(this.scratch!, block.subarray(0, this.used), this.handedOver).then(() => block);
    write.catch(() => undefined); // handled: waited for below, in complete() or in discard()
    this.writes.push(write);
    this.handedOver += this.used;
    this.block = undefined;
    this.used = 0;
    if (this.writes.length >= WRITES_IN_FLIGHT) this.spareBlocks.push(await this.writes.shift()!);
  }

  /** Every block handed over is in the scratch file. */
  private async drain(): Promise<void> {
    while (this.writes.length > 0) this.spareBlocks.push(await this.writes.shift()!);
  }

  async complete(): Promise<void> {
    if (this.completed) return;
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('big-endian hosts are not supported');
    try {
      this.scratch ??= await open(this.scratchPath, 'wx+');
      await this.flush();
      await this.drain();
    } catch (error) {
      throw namingFile(this.path, error);
    }
    this.block = undefined;
    this.spareBlocks.length = 0;
    const { header } = encodeSafetensorsHeader({ embeddings: { dtype: 'float32', shape: [this.count, this.dim] } }, this.metadata());
    this.output = await AtomicFile.create(this.path);
    await this.output.write(header);
    // Two buffers, so that the next one is read while the one before is written: the copy is the tail of every run
    // (a read then a write, each waited for, took ~0.2 s for 150 MB on the 2-core box).
    const buffers = [new Uint8Array(COPY_BYTES), new Uint8Array(COPY_BYTES)];
    let writing: Promise<void> = Promise.resolve();
    for (let position = 0, k = 0; ; k ^= 1) {
      // buffers[k]'s last write (two rounds ago) was waited for in the round before.
      const { bytesRead } = await this.scratch.read(buffers[k], 0, COPY_BYTES, position);
      await writing;
      if (bytesRead === 0) break;
      writing = this.output.write(buffers[k].subarray(0, bytesRead));
      writing.catch(() => undefined); // handled: waited for in the next round
      position += bytesRead;
    }
    await this.output.complete();
    await this.scratch.close();
    this.scratch = undefined;
    await rm(this.scratchPath, { force: true });
    this.completed = true;
  }

  async publish(): Promise<void> {
    await this.complete();
    await this.output!.publish();
  }

  async commit(): Promise<void> {
    await this.complete();
    await this.publish();
  }

  async discard(): Promise<void> {
    this.block = undefined;
    this.used = 0;
    this.spareBlocks.length = 0;
    await Promise.allSettled(this.writes.splice(0)); // before closing the file they write to
    await this.scratch?.close().catch(() => undefined);
    this.scratch = undefined;
    await rm(this.scratchPath, { force: true });
    await this.output?.discard();
  }
}

/** All of `bytes` at `position` (a write may take part of them). */
async function writeAt(file: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
}
