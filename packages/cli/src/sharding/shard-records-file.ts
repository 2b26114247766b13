import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BufferedAtomicFile, type StagedOutput } from '@virnucpro/atomic-file';

/** A shard's records, in the order of its outputs, with their place in the whole input (what merge restores). */
export const SHARD_RECORDS_FILE = 'shard_records.tsv';
const HEADER = 'input_record\tSequence_ID';

export interface ShardRecord {
  /** 1-based position of the record in the whole input. */
  inputRecord: number;
  id: string;
}

/**
 * The record list of a `predict --shard` run, written as the records are read (a list kept to the end grew with
 * the input), staged with the run's other result files: published with them, or discarded.
 */
export class ShardRecordsWriter implements StagedOutput {
  /** Blocks handed to the file while the records were read; the first write error surfaces at `complete()`. */
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown;

  private constructor(private readonly file: BufferedAtomicFile) {}

  static async create(outDir: string): Promise<ShardRecordsWriter> {
    const file = await BufferedAtomicFile.create(join(outDir, SHARD_RECORDS_FILE));
    file.writeText(`${HEADER}\n`);
    return new ShardRecordsWriter(file);
  }

  /** The next record of the shard (called from the reader's synchronous callbacks, so it does not wait). */
  add(record: ShardRecord): void {
    this.file.writeText(`${record.inputRecord}\t${record.id}\n`);
    if (this.file.full) {
      // flush() takes the buffered bytes at once, and the file writes what it is handed in that order.
      const flushed = this.file.flush().catch((error: unknown) => {
        this.failure ??= error;
      });
      this.writing = this.writing.then(() => flushed);
    }
  }

  async complete(): Promise<void> {
    await this.writing;
    if (this.failure !== undefined) throw this.failure;
    await this.file.complete();
  }

  async publish(): Promise<void> {
    await this.complete();
    await this.file.publish();
  }

  async discard(): Promise<void> {
    await this.writing;
    await this.file.discard();
  }
}

/** A shard's record list, read line by line; throws an Error naming the file and line where it is not one. */
export async function* readShardRecords(shardDir: string): AsyncGenerator<ShardRecord> {
  const path = join(shardDir, SHARD_RECORDS_FILE);
  let line = 0;
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
  try {
    for await (const text of lines) {
      line++;
      if (line === 1) {
        if (text !== HEADER) throw new Error(`${path}: not a shard record list (first line '${text}')`);
        continue;
      }
      const tab = text.indexOf('\t');
      const inputRecord = Number(text.slice(0, tab));
      if (tab < 0 || !Number.isSafeInteger(inputRecord) || inputRecord < 1) throw new Error(`${path}: line ${line} is not '<record number>\\t<id>'`);
      yield { inputRecord, id: text.slice(tab + 1) };
    }
  } finally {
    lines.close();
  }
}
