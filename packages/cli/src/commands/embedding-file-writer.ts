import { createReadStream, createWriteStream } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { encodeSafetensorsHeader } from '@virnucpro/weights';

/**
 * Writes an `embeddings` float32 [N, dim] safetensors file without holding N vectors in memory:
 * vectors stream into a data temp file; finish() writes the header (@virnucpro/weights' encoder; N and the
 * `__metadata__` with the ids are only known then) into a second temp file, appends the data, fsyncs and renames.
 * abort() removes both temp files, so a failed or interrupted run leaves no partial output.
 */
export class EmbeddingFileWriter {
  private readonly dataPath: string;
  private readonly finalTemp: string;
  private data: FileHandle | undefined;
  private count = 0;

  constructor(readonly path: string, readonly dim: number) {
    this.dataPath = `${path}.data.tmp-${process.pid}`;
    this.finalTemp = `${path}.tmp-${process.pid}`;
  }

  get rows(): number {
    return this.count;
  }

  async append(vector: Float32Array): Promise<void> {
    if (vector.length !== this.dim) throw new Error(`embedding has ${vector.length} values, expected ${this.dim}`);
    this.data ??= await open(this.dataPath, 'w');
    // safetensors is little-endian, as is every platform Node runs on (checked in finish()).
    await this.data.write(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
    this.count++;
  }

  async finish(metadata: Record<string, string>): Promise<void> {
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('big-endian hosts are not supported');
    this.data ??= await open(this.dataPath, 'w');
    await this.data.close();
    this.data = undefined;
    const { header } = encodeSafetensorsHeader({ embeddings: { dtype: 'float32', shape: [this.count, this.dim] } }, metadata);
    const out = await open(this.finalTemp, 'w');
    try {
      await out.write(header);
    } finally {
      await out.close();
    }
    await pipeline(createReadStream(this.dataPath), createWriteStream(this.finalTemp, { flags: 'a' }));
    const synced = await open(this.finalTemp, 'r+');
    try {
      await synced.sync();
    } finally {
      await synced.close();
    }
    await rename(this.finalTemp, this.path);
    await rm(this.dataPath, { force: true });
  }

  async abort(): Promise<void> {
    await this.data?.close().catch(() => undefined);
    this.data = undefined;
    await rm(this.dataPath, { force: true });
    await rm(this.finalTemp, { force: true });
  }
}
