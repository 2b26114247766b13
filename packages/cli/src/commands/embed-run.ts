import { writeFileAtomicSync } from '@virnucpro/atomic-file';
import { onTerminationSignal, type TerminationSignal } from '../termination-signal.js';
import { readFasta } from '@virnucpro/fasta-stream';
import { ChunkRefusal, type ChunkEncoder, type Embedder } from '@virnucpro/ops';
import { runEmbedding, serialEmbedder } from '@virnucpro/runtime';
import { UsageError } from '../errors.js';
import { batchesInFlight, type ComputeDescription, type CudaDeviceSummary } from '@virnucpro/compute';
import { embedSplittingOnOom } from '@virnucpro/predict';
import { planEmbeddingFile } from './embedding-file-plan.js';
import { EmbeddingFileWriter } from './embedding-file-writer.js';
import { ReusedBatchArrays } from './reused-batch-arrays.js';
import type { EmbedThread } from './embed-thread.js';

export interface EmbedRunOptions {
  /** The model on this thread; or, with `encoder`, */
  embedder?: Embedder;
  /** the model on a thread of its own (modelRunsOnThread), which takes the encoder's ids. */
  modelThread?: EmbedThread;
  /** The backend the embedder runs on, its precision and (cuda) GPU. */
  compute: ComputeDescription;
  input: string;
  output: string;
  tokenBudget: number;
  /** Items the packer may hold back to fill batches. */
  window: number;
  summaryPath?: string;
  /** What a sequence is made of, for the empty-record message; default "amino acid". */
  residue?: string;
  /** Embed only the first `truncate` characters of each record. */
  truncate?: number;
  /** Why a record is not what the model reads (DNA given to a protein model...), or undefined when it is. */
  checkRecord?: (sequence: string) => string | undefined;
  /** Extra `__metadata__` entries (model name, config). */
  metadata: Record<string, string>;
  /**
   * The embedder's encoder, already starting (the model descriptor's `startEncoder`, begun while the model loaded);
   * closed here, used only where the embedder takes ids. Without it, `tokenized.startEncoder()` is started here.
   */
  encoder?: Promise<ChunkEncoder<string>>;
  log?: (line: string) => void;
}

export interface EmbedSummary {
  sequences: number;
  tokens: number;
  batches: number;
  tokenBudget: number;
  /** Real tokens / (batches × budget), a lone oversize batch counting its own size. */
  packingEfficiency: number;
  seconds: number;
  sequencesPerSecond: number;
  tokensPerSecond: number;
  backend: string;
  precision: string;
  /** On cuda: GPU, architecture, driver CUDA, NVRTC and cuBLASLt versions. */
  cuda?: CudaDeviceSummary;
  /** Batches split in two after the GPU ran out of memory. */
  oomSplits: number;
  /** Whether the model ran on a thread of its own (embed-thread.ts) rather than the command's main thread. */
  modelOnThread: boolean;
  /** Records cut to --truncate characters. */
  truncated: number;
  model: string;
  dim: number;
}

/** Records a chunk sent to the encoder's threads: enough that a message's cost is small beside its BPE. */
const ENCODE_CHUNK = 256;
/** Chunks sent and not yet taken: the threads kept busy while the main thread packs and embeds. */
const CHUNKS_IN_FLIGHT = 8;

/** A record read, checked and cut; `where` names it in an error. */
interface CheckedRecord {
  id: string;
  sequence: string;
  where: string;
}

interface Protein {
  id: string;
  sequence: string;
  /** As the embedder counts them. */
  tokens: number;
  /** Its token ids, where the embedder can take them (`tokenized`): made once, when counted, and embedded as made. */
  tokenIds?: Int32Array;
}

/**
 * FASTA → runEmbedding (packing window with carry-over, the model on this thread or its own — two batches at once on a GPU —,
 * input order restored) →
 * `embeddings` [N, dim] safetensors in input order, with
 * `__metadata__.ids` (JSON array). Bad records stop the run with a UsageError naming the record;
 * nothing is left at the output path unless the run completes. SIGINT/SIGTERM clean up too.
 */
export async function runEmbed(options: EmbedRunOptions): Promise<EmbedSummary> {
  const { embedder, modelThread } = options;
  const tokenized = embedder?.tokenized;
  const model = modelThread?.info ?? embedder;
  if (!model || (modelThread && embedder)) throw new Error('runEmbed: one model, on this thread (embedder) or its own (modelThread)');
  if (modelThread && !options.encoder) throw new Error("runEmbed: a model on its own thread takes the encoder's ids");
  const ids: string[] = [];
  const metadataFor = (ids: string[]) => ({ ...options.metadata, ids: JSON.stringify(ids) });
  let stopped = false;
  let interrupted: TerminationSignal | undefined;
  const plan = planEmbeddingFile(options.input, metadataFor, () => stopped || interrupted !== undefined);
  const writer = new EmbeddingFileWriter(options.output, model.dim, () => metadataFor(ids), plan);
  let tokens = 0;
  let batches = 0;
  let spent = 0;
  let oomSplits = 0;
  let truncated = 0;
  const started = performance.now();
  // SIGINT/SIGTERM (the one handler, @virnucpro/checkpoint's): the loop stops before its next batch and
  // removes the partial output; then the handler says so and exits 130 / 143.
  let outputRemoved!: () => void;
  const stoppedCleanly = new Promise<void>((resolve) => (outputRemoved = resolve));
  const stopHandling = onTerminationSignal(async (signal) => {
    interrupted = signal;
    await stoppedCleanly;
    options.log?.(`interrupted by ${signal}; no output written`);
  });
  const stopForSignal = async (): Promise<never> => {
    await writer.discard();
    outputRemoved();
    return new Promise<never>(() => undefined); // the signal handler exits
  };

  /** Each record read, checked and cut, in input order; `where` names it in an error. */
  async function* checkedRecords(): AsyncGenerator<CheckedRecord> {
    let index = 0;
    for await (const record of readFasta(options.input)) {
      if (interrupted) return;
      const where = `${options.input}: record ${index + 1} (>${record.id})`;
      if (record.sequence.length === 0) throw new UsageError(`${where}: empty sequence; expected at least one ${options.residue ?? 'amino acid'}`);
      const problem = options.checkRecord?.(record.sequence);
      if (problem) throw new UsageError(`${where}: ${problem}`);
      let sequence = record.sequence;
      if (options.truncate !== undefined && sequence.length > options.truncate) {
        sequence = sequence.slice(0, options.truncate);
        truncated++;
      }
      index++;
      yield { id: record.id, sequence, where };
    }
  }

  async function* items(): AsyncGenerator<Protein> {
    for await (const { id, sequence, where } of checkedRecords()) {
      let item: Protein;
      try {
        if (tokenized) {
          const tokenIds = tokenized.encode(sequence);
          item = { id, sequence, tokens: tokenIds.length, tokenIds };
        } else {
          item = { id, sequence, tokens: embedder!.tokenCount(sequence) };
        }
      } catch (error) {
        throw new UsageError(`${where}: ${(error as Error).message}`);
      }
      yield item;
    }
  }

  /**
   * items() with the ids made on the encoder's threads: records sent in chunks, a few chunks in flight, taken back in
   * input order. A record refused, or one that fails its checks, stops the run where it would have on this thread:
   * the chunks before it are taken first (an earlier refusal is the error).
   */
  async function* itemsEncodedApart(encoder: ChunkEncoder<string>): AsyncGenerator<Protein> {
    const sent: { records: CheckedRecord[]; ids: Promise<Int32Array[]> }[] = [];
    let chunk: CheckedRecord[] = [];
    const send = () => {
      if (chunk.length === 0) return;
      const ids = encoder.encode(chunk.map((r) => r.sequence));
      ids.catch(() => undefined); // seen when taken; a run stopped before then leaves it
      sent.push({ records: chunk, ids });
      chunk = [];
    };
    async function* takeAllBut(left: number): AsyncGenerator<Protein> {
      while (sent.length > left) {
        const { records, ids } = sent.shift()!;
        let tokenIds: Int32Array[];
        try {
          tokenIds = await ids;
        } catch (error) {
          if (error instanceof ChunkRefusal) throw new UsageError(`${records[error.index].where}: ${error.message}`);
          throw error;
        }
        for (let i = 0; i < records.length; i++) {
          yield { id: records[i].id, sequence: records[i].sequence, tokens: tokenIds[i].length, tokenIds: tokenIds[i] };
        }
      }
    }
    const records = checkedRecords();
    for (;;) {
      let next: IteratorResult<CheckedRecord>;
      try {
        next = await records.next();
      } catch (error) {
        send();
        yield* takeAllBut(0);
        throw error;
      }
      if (next.done) break;
      chunk.push(next.value);
      if (chunk.length === ENCODE_CHUNK) {
        send();
        yield* takeAllBut(CHUNKS_IN_FLIGHT);
      }
    }
    send();
    yield* takeAllBut(0);
  }

  // On a GPU two batches at once, as predict's workers run them: the next batch's kernels queue behind the one
  // before instead of after its results are read back (one at a time, an H200's stream ran empty 104 times in an fp8
  // run's first 30 s, 26 ms each on average: the command made 152,500 tokens/s where the model bench made 176,300).
  // The batches' vectors are read into a few arrays used again once written (the writer copies each vector out).
  const arrays = new ReusedBatchArrays();
  const embedOnThisThread = serialEmbedder<Protein>(async (batch) => {
    // The model computes on this thread, and a window's batches can chain without any I/O: let the event
    // loop turn between batches, or a signal would wait for the whole window.
    await new Promise((resolve) => setImmediate(resolve));
    if (interrupted) await stopForSignal(); // never returns: the handler exits
    if (stopped) throw new Error('embedding stopped');
    const describe = (item: (typeof batch.items)[number]) =>
      `record ${item.index + 1} (>${item.value.id}, ${item.value.sequence.length} ${options.residue === 'nucleotide' ? 'nt' : 'aa'})`;
    // A model on its own thread splits a batch that runs out of memory there (the runtime's pool).
    const vectors = modelThread
      ? await modelThread.embed(batch.items.map((item) => item.value.tokenIds!), (position) => describe(batch.items[position]))
      : await embedSplittingOnOom(
          batch.items,
          tokenized
            ? (part) => tokenized.embed(part.map((item) => item.value.tokenIds!), arrays.allocate)
            : (part) => embedder!.embed(part.map((item) => item.value.sequence)),
          { onSplit: () => oomSplits++, describe },
        );
    arrays.hold(vectors);
    const batchTokens = batch.items.reduce((sum, item) => sum + item.tokens, 0);
    batches++;
    tokens += batchTokens;
    spent += Math.max('tokenBudget' in batch ? batch.tokenBudget : options.tokenBudget, batchTokens);
    return vectors;
  }, {
    concurrent: modelThread?.batchesAtOnce ?? batchesInFlight(options.compute.backend),
    // The packer hands over a window's batches at once. Open only while fewer than two batches were queued, the
    // reader stopped with a window's batches waiting and read the next window only when one batch was left on the
    // GPU: the GPU then waited for the window's reading and packing, and the reader for the GPU.
    waitingItems: options.window,
  });

  let encoder: ChunkEncoder<string> | undefined;
  try {
    // Started while the model loaded, where the caller could: the BPE threads took an H200 machine's `embed dnabert`
    // ~0.1–0.2 s to start, with the GPU waiting for its first batch.
    encoder = await (modelThread ? options.encoder : tokenized ? options.encoder ?? tokenized.startEncoder?.() : undefined);
    const run = runEmbedding<Protein>({
      items: encoder ? itemsEncodedApart(encoder) : items(),
      // The first batches as soon as the records for them are read: a window of 4,096 500-bp windows took an H200's
      // fp8 DNABERT-S 262 ms to fill (BPE included) while the GPU waited, a tenth of a 5M-token run.
      pack: { tokenBudget: options.tokenBudget, window: options.window, firstWindowTokens: batchesInFlight(options.compute.backend) * options.tokenBudget, tokenCount: (protein) => protein.tokens },
      pool: embedOnThisThread,
      // Bounded by the packing window alone (an item waits at most two windows), as the reorder buffer always was.
      maxReadAhead: Infinity,
    });
    for await (const result of run) {
      await writer.append(result.vector);
      arrays.release(result.vector);
      ids.push(result.item.id);
    }
    if (interrupted) await stopForSignal();
    await writer.commit();
  } catch (error) {
    stopped = true; // batches still queued are not embedded
    if (interrupted) await stopForSignal();
    await writer.discard();
    throw error;
  } finally {
    await encoder?.close();
    // One given for an embedder that does not take ids is not used, but is this run's to close.
    if (!tokenized && !modelThread) await options.encoder?.then((unused) => unused.close(), () => undefined);
    stopHandling();
  }
  const seconds = (performance.now() - started) / 1000;
  const summary: EmbedSummary = {
    sequences: ids.length,
    tokens,
    batches,
    tokenBudget: options.tokenBudget,
    packingEfficiency: spent === 0 ? 0 : tokens / spent,
    seconds,
    sequencesPerSecond: ids.length / seconds,
    tokensPerSecond: tokens / seconds,
    backend: options.compute.backend,
    precision: options.compute.precision,
    ...(options.compute.cuda ? { cuda: options.compute.cuda } : {}),
    oomSplits: oomSplits + (modelThread?.oomSplits ?? 0),
    modelOnThread: modelThread !== undefined,
    truncated,
    model: model.name,
    dim: model.dim,
  };
  if (options.summaryPath) writeFileAtomicSync(options.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
