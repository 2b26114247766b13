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
 * Vector bytes a writer holds in memory while its plan is still being made, before it waits for the plan: at 150 bp
 * ~21,000 windows, the first ~10 batches (a first pass over 150,000 ids takes ~0.1 s).
 */
const HOLD_BYTES = 64 << 20;

/**
 * The output's data synced beside its writes every this many bytes (AtomicFile's syncEveryBytes), so that the run's
 * last step does not write hundreds of MB to disk in one fsync. $VIRNUCPRO_OUTPUT_SYNC_MIB sets it in MiB (0: one
 * fsync at the end, as before; the A/B).
 */
export function outputSyncEveryBytes(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.VIRNUCPRO_OUTPUT_SYNC_MIB;
  if (value === undefined || value === '') return 64 << 20;
  const mib = Number(value);
  if (!Number.isInteger(mib) || mib < 0) throw new Error(`VIRNUCPRO_OUTPUT_SYNC_MIB: '${value}' is not a whole number of MiB (0 syncs only at the end)`);
  return mib * (1 << 20);
}

/** What the finished file will hold, known before its vectors arrive (`embed`: a first pass over the input's ids). */
export interface EmbeddingFilePlan {
  rows: number;
  metadata: Record<string, string>;
}

/** Where blocks of vectors go: a scratch file, or the output itself behind the room its header will take. */
type Target = { scratch: FileHandle } | { output: AtomicFile; dataStart: number };

/**
 * Writes an `embeddings` float32 [N, dim] safetensors file without holding N vectors in memory. The header holds N and
 * the `__metadata__` with the ids, asked of `metadata()` at the end, so it is known last but comes first:
 * - given a plan (N and the metadata known ahead), the vectors go straight into the output behind the room that
 *   plan's header takes; at the end the header is written in front of them. Where the header turns out another size
 *   (the input changed under the run), the vectors are copied as below — the bytes never depend on the plan;
 * - without one, the vectors stream into a scratch file and complete() copies them behind the header (for 150,000
 *   150-bp windows, 460 MB: 0.4–2.2 s on the 2-core box, most of the command's tail).
 * Either way vectors go through reused 1 MiB blocks, several writes under way. The output is an AtomicFile, fsynced by
 * complete(); publish() renames it into place (a StagedOutput; commit() does both). discard() removes every file, so a
 * failed or interrupted run leaves no partial output.
 */
export class EmbeddingFileWriter implements StagedOutput {
  /** Named like any temporary file (@virnucpro/atomic-file), so a killed run's scratch is cleaned up too. */
  private readonly scratchPath: string;
  /** Let go of once used: its metadata holds every id. */
  private plan: Promise<EmbeddingFilePlan | undefined>;
  private planSettled: boolean;
  /** Undefined until the first block is written (or the plan has settled). */
  private target: Target | undefined;
  /** Blocks kept while the plan is made, each with its place among the vectors' bytes. */
  private held: { block: Uint8Array; length: number; position: number }[] = [];
  private heldBytes = 0;
  /** Vector bytes not yet handed to a write: `block[0, used)`. */
  private block: Uint8Array | undefined;
  private used = 0;
  /** Vector bytes handed over so far: where the next block goes among them. */
  private handedOver = 0;
  /** Block writes under way, oldest first; each resolves to its block, to be filled again. */
  private writes: Promise<Uint8Array>[] = [];
  private readonly spareBlocks: Uint8Array[] = [];
  private output: AtomicFile | undefined;
  private count = 0;
  private completed = false;
  /** After discard() nothing is opened again (a signal's discard can come while an append waits for the plan). */
  private discarded = false;
  private readonly syncEveryBytes = outputSyncEveryBytes();

  constructor(
    readonly path: string,
    readonly dim: number,
    private readonly metadata: () => Record<string, string> = () => ({}),
    plan?: Promise<EmbeddingFilePlan | undefined>,
  ) {
    this.scratchPath = tempPathFor(path);
    // A plan that fails is no plan: the vectors then take the scratch file.
    this.plan = plan ? plan.catch(() => undefined) : Promise.resolve(undefined);
    this.planSettled = plan === undefined;
    void this.plan.then(() => (this.planSettled = true));
  }

  get rows(): number {
    return this.count;
  }

  /** Appends one vector; the caller awaits each before the next. */
  async append(vector: Float32Array): Promise<void> {
    if (vector.length !== this.dim) throw new Error(`embedding has ${vector.length} values, expected ${this.dim}`);
    try {
      // The file opens with the first vector once the plan allows (an unwritable folder fails early; a run's file shows).
      if (this.target === undefined && this.planSettled) await this.settleTarget();
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

  /** Hands the block over: held while the plan is made (up to HOLD_BYTES), else written at its place. */
  private async flush(): Promise<void> {
    if (this.used === 0) return;
    const block = { block: this.block!, length: this.used, position: this.handedOver };
    this.handedOver += this.used;
    this.block = undefined;
    this.used = 0;
    if (this.target === undefined && !this.planSettled && this.heldBytes + block.length <= HOLD_BYTES) {
      this.held.push(block);
      this.heldBytes += block.length;
      return;
    }
    await this.settleTarget();
    await this.write(block);
  }

  /** Waits for the plan, opens the target it allows and writes the blocks held meanwhile. */
  private async settleTarget(): Promise<void> {
    if (this.target !== undefined) return;
    const plan = await this.plan;
    this.plan = Promise.resolve(undefined);
    if (this.discarded) throw new Error('the output was discarded');
    this.target = plan
      ? { output: await AtomicFile.create(this.path, { syncEveryBytes: this.syncEveryBytes }), dataStart: this.header(plan.rows, plan.metadata).length }
      : { scratch: await open(this.scratchPath, 'wx+') };
    const held = this.held.splice(0);
    this.heldBytes = 0;
    for (const block of held) await this.write(block);
  }

  /** Starts a block's write at its place in the target; waits for the oldest only when WRITES_IN_FLIGHT are under way. */
  private async write({ block, length, position }: { block: Uint8Array; length: number; position: number }): Promise<void> {
    const target = this.target!;
    const bytes = block.subarray(0, length);
    const written = 'scratch' in target ? writeAt(target.scratch, bytes, position) : target.output.writeAt(bytes, target.dataStart + position);
    const write = written.then(() => block);
    write.catch(() => undefined); // handled: waited for below, in complete() or in discard()
    this.writes.push(write);
    if (this.writes.length >= WRITES_IN_FLIGHT) this.spareBlocks.push(await this.writes.shift()!);
  }

  /** Every block handed over is in the target. */
  private async drain(): Promise<void> {
    while (this.writes.length > 0) this.spareBlocks.push(await this.writes.shift()!);
  }

  private header(rows: number, metadata: Record<string, string>): Uint8Array {
    return encodeSafetensorsHeader({ embeddings: { dtype: 'float32', shape: [rows, this.dim] } }, metadata).header;
  }

  async complete(): Promise<void> {
    if (this.completed) return;
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('big-endian hosts are not supported');
    try {
      await this.flush();
      await this.settleTarget();
      await this.drain();
    } catch (error) {
      throw namingFile(this.path, error);
    }
    this.block = undefined;
    this.spareBlocks.length = 0;
    const header = this.header(this.count, this.metadata());
    const target = this.target!;
    if ('output' in target && header.length === target.dataStart) {
      await target.output.writeAt(header, 0);
      this.output = target.output;
    } else {
      // In the scratch file, or in the output behind a header of another size: copied behind this one.
      const source = 'scratch' in target ? target.scratch : await open(target.output.tempPath, 'r');
      const start = 'scratch' in target ? 0 : target.dataStart;
      this.output = await AtomicFile.create(this.path, { syncEveryBytes: this.syncEveryBytes });
      await this.output.write(header);
      await copyBytes(source, start, this.handedOver, this.output);
      await source.close();
      if ('scratch' in target) await rm(this.scratchPath, { force: true });
      else await target.output.discard();
    }
    this.target = undefined;
    await this.output.complete();
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
    this.discarded = true;
    this.block = undefined;
    this.used = 0;
    this.spareBlocks.length = 0;
    this.held = [];
    await Promise.allSettled(this.writes.splice(0)); // before closing the file they write to
    const target = this.target;
    this.target = undefined;
    if (target && 'scratch' in target) await target.scratch.close().catch(() => undefined);
    if (target && 'output' in target) await target.output.discard();
    await rm(this.scratchPath, { force: true });
    await this.output?.discard();
  }
}

/**
 * `length` bytes of `source` from `start` appended to `output`, with two buffers, so that the next is read while the
 * one before is written (a read then a write, each waited for, took ~0.2 s for 150 MB on the 2-core box).
 */
async function copyBytes(source: FileHandle, start: number, length: number, output: AtomicFile): Promise<void> {
  const buffers = [new Uint8Array(COPY_BYTES), new Uint8Array(COPY_BYTES)];
  let writing: Promise<void> = Promise.resolve();
  for (let done = 0, k = 0; done < length; k ^= 1) {
    // buffers[k]'s last write (two rounds ago) was waited for in the round before.
    const { bytesRead } = await source.read(buffers[k], 0, Math.min(COPY_BYTES, length - done), start + done);
    await writing;
    if (bytesRead === 0) throw new Error(`${output.path}: the vectors' file ended ${length - done} bytes early`);
    writing = output.write(buffers[k].subarray(0, bytesRead));
    writing.catch(() => undefined); // handled: waited for in the next round
    done += bytesRead;
  }
  await writing;
}

/** All of `bytes` at `position` (a write may take part of them). */
async function writeAt(file: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let done = 0; done < bytes.length; ) done += (await file.write(bytes, done, bytes.length - done, position + done)).bytesWritten;
}
