import { writeFileAtomicSync } from '@virnucpro/atomic-file';
import { onTerminationSignal, type TerminationSignal } from '@virnucpro/checkpoint';
import { readFasta } from '@virnucpro/fasta-stream';
import type { Embedder } from '@virnucpro/ops';
import { packAsyncIterable, type PackItem } from '@virnucpro/packer';
import { UsageError } from '../errors.js';
import type { ComputeDescription, CudaDeviceSummary } from '../pipeline/compute-backend.js';
import { embedSplittingOnOom } from '../pipeline/oom-split.js';
import { EmbeddingFileWriter } from './embedding-file-writer.js';

export interface EmbedRunOptions {
  embedder: Embedder;
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
  /** Extra `__metadata__` entries (model name, config). */
  metadata: Record<string, string>;
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
  model: string;
  dim: number;
}

interface Protein {
  id: string;
  sequence: string;
}

/**
 * FASTA → packed batches → embedder → `embeddings` [N, dim] safetensors in input order, with
 * `__metadata__.ids` (JSON array). Bad records stop the run with a UsageError naming the record;
 * nothing is left at the output path unless the run completes. SIGINT/SIGTERM clean up too.
 */
export async function runEmbed(options: EmbedRunOptions): Promise<EmbedSummary> {
  const { embedder } = options;
  const writer = new EmbeddingFileWriter(options.output, embedder.dim);
  const ids: string[] = [];
  let tokens = 0;
  let batches = 0;
  let spent = 0;
  let oomSplits = 0;
  const started = performance.now();
  // SIGINT/SIGTERM (the one handler, @virnucpro/checkpoint's): the loop stops before its next batch and
  // removes the partial output; then the handler says so and exits 130 / 143.
  let interrupted: TerminationSignal | undefined;
  let outputRemoved!: () => void;
  const stoppedCleanly = new Promise<void>((resolve) => (outputRemoved = resolve));
  const stopHandling = onTerminationSignal(async (signal) => {
    interrupted = signal;
    await stoppedCleanly;
    options.log?.(`interrupted by ${signal}; no output written`);
  });
  const stopForSignal = async (): Promise<never> => {
    await writer.abort();
    outputRemoved();
    return new Promise<never>(() => undefined); // the signal handler exits
  };

  async function* items(): AsyncGenerator<PackItem<Protein>> {
    let index = 0;
    for await (const record of readFasta(options.input)) {
      if (interrupted) return;
      const where = `${options.input}: record ${index + 1} (>${record.id})`;
      if (record.sequence.length === 0) throw new UsageError(`${where}: empty sequence; expected at least one ${options.residue ?? 'amino acid'}`);
      let count: number;
      try {
        count = embedder.tokenCount(record.sequence);
      } catch (error) {
        throw new UsageError(`${where}: ${(error as Error).message}`);
      }
      yield { index: index++, tokens: count, value: { id: record.id, sequence: record.sequence } };
    }
  }

  try {
    // Batches may complete out of input order; vectors wait here until their turn.
    const pending = new Map<number, { id: string; vector: Float32Array }>();
    let next = 0;
    for await (const batch of packAsyncIterable(items(), { tokenBudget: options.tokenBudget, window: options.window })) {
      // The model computes on this thread, and a window's batches can chain without any I/O: let the event
      // loop turn between batches, or a signal would wait for the whole window.
      await new Promise((resolve) => setImmediate(resolve));
      if (interrupted) await stopForSignal(); // never returns: the handler exits
      const vectors = await embedSplittingOnOom(batch.items, (part) => embedder.embed(part.map((item) => item.value.sequence)), {
        onSplit: () => oomSplits++,
        describe: (item) => `record ${item.index + 1} (>${item.value.id}, ${item.value.sequence.length} ${options.residue === 'nucleotide' ? 'nt' : 'aa'})`,
      });
      batch.items.forEach((item, i) => pending.set(item.index, { id: item.value.id, vector: vectors[i] }));
      batches++;
      tokens += batch.tokens;
      spent += Math.max(batch.tokenBudget, batch.tokens);
      for (let ready = pending.get(next); ready; ready = pending.get(next)) {
        await writer.append(ready.vector);
        ids.push(ready.id);
        pending.delete(next++);
      }
    }
    if (interrupted) await stopForSignal();
    if (pending.size) throw new Error(`internal: ${pending.size} embeddings never reached their turn`);
    await writer.finish({ ...options.metadata, ids: JSON.stringify(ids) });
  } catch (error) {
    if (interrupted) await stopForSignal();
    await writer.abort();
    throw error;
  } finally {
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
    oomSplits,
    model: embedder.name,
    dim: embedder.dim,
  };
  if (options.summaryPath) writeFileAtomicSync(options.summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  return summary;
}
