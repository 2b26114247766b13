import { open, rm, type FileHandle } from 'node:fs/promises';
import { AtomicFile, namingFile, tempPathFor, type StagedOutput } from '@virnucpro/atomic-file';
import { encodeSafetensorsHeader } from '@virnucpro/weights';

/** Bytes copied per read from the scratch file into the output. */
const COPY_BYTES = 1 << 22;

/**
 * Writes an `embeddings` float32 [N, dim] safetensors file without holding N vectors in memory:
 * vectors stream into a scratch file; complete() writes the header (@virnucpro/weights' encoder; N and the
 * `__metadata__` with the ids are only known then: `metadata()` is asked at that point) and then the vectors into
 * an AtomicFile, fsynced; publish() renames it into place (a StagedOutput; commit() does both). discard() removes
 * both, so a failed or interrupted run leaves no partial output.
 */
export class EmbeddingFileWriter implements StagedOutput {
  /** Named like any temporary file (@virnucpro/atomic-file), so a killed run's scratch is cleaned up too. */
  private readonly scratchPath: string;
  private scratch: FileHandle | undefined;
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

  async append(vector: Float32Array): Promise<void> {
    if (vector.length !== this.dim) throw new Error(`embedding has ${vector.length} values, expected ${this.dim}`);
    try {
      this.scratch ??= await open(this.scratchPath, 'wx+');
      // safetensors is little-endian, as is every platform Node runs on (checked in finish()).
      await this.scratch.write(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    } catch (error) {
      throw namingFile(this.path, error);
    }
    this.count++;
  }

  async complete(): Promise<void> {
    if (this.completed) return;
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('big-endian hosts are not supported');
    try {
      this.scratch ??= await open(this.scratchPath, 'wx+');
    } catch (error) {
      throw namingFile(this.path, error);
    }
    const { header } = encodeSafetensorsHeader({ embeddings: { dtype: 'float32', shape: [this.count, this.dim] } }, this.metadata());
    this.output = await AtomicFile.create(this.path);
    await this.output.write(header);
    const buffer = new Uint8Array(COPY_BYTES);
    for (let position = 0; ; ) {
      const { bytesRead } = await this.scratch.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      await this.output.write(buffer.slice(0, bytesRead));
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
    await this.scratch?.close().catch(() => undefined);
    this.scratch = undefined;
    await rm(this.scratchPath, { force: true });
    await this.output?.discard();
  }
}
