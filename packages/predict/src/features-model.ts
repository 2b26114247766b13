// The VirNucPro feature model: BOTH embedding models in one worker, so that a frame travels to a device once and
// comes back as its finished feature [DNABERT-S mean | ESM-2 mean]. features-worker.ts is the module the worker loads.
import { loadDnabertEmbedder } from '@virnucpro/dnabert';
import { loadEsm2Embedder } from '@virnucpro/esm2';
import { batchesInFlight, gpuUtilization, peakGpuBytes, startCompute, startGpuUtilizationSampling, type ComputeDescription, type ComputeSettings } from '@virnucpro/compute';
import { inRefinementPrecision, type Embedder } from '@virnucpro/ops';
import { esmTokenCount, type FrameItem } from './frame-item.js';
import { FEATURES_MODEL_NAME } from './feature-name.js';
import { modelLoadError, type ModelLabel } from './model-load-error.js';
import { embedSplittingOnOom, isOutOfMemory } from './oom-split.js';

/** Where the two embedding models are (a converted or Hugging Face folder each). */
export interface FeatureModelPaths {
  esm: string;
  dnabert: string;
}

/** Counters a features model keeps (reported to the pool with every batch). */
export type FeaturesCounters = {
  /** Batches split in two after the GPU ran out of memory (each split counted once). */
  oomSplits: number;
  /** Frames embedded again at the refinement precision (fp8: bf16) because their score lay near 0.5. */
  refinedFrames: number;
  /** ESM-2 batches recomputed in fp32 because their fp16/bf16 output held a NaN or ±Inf. */
  fp32Recomputes: number;
  /** Tokens each model embedded (counted where the tokenizers run, in the worker). */
  dnabertTokens: number;
  esmTokens: number;
  /** Peak GPU bytes held by tensors so far (never shrinks, so the pool's sum of increases is the latest value). */
  peakGpuBytes: number;
  /** GPU utilisation samples taken since the models loaded (cuda with NVML; 0 elsewhere) and their sum in percent. */
  gpuBusySamples: number;
  gpuBusyPercentSum: number;
};

/** The VirNucPro feature model: an Embedder of six-frame items (packed on their ESM-2 tokens). */
export interface FeaturesModel extends Embedder<FrameItem> {
  /** DNABERT-S's part of `dim` (the first values of a feature; ESM-2's follow). */
  readonly dnabertDim: number;
  /** Backend, precision and (cuda) GPU and library versions: run_summary.json, via the pool's telemetry. */
  describe(): ComputeDescription;
  counters(): FeaturesCounters;
}

/** Starts the planned backend (`settings`, from planCompute) and loads both models onto it: a worker's model. */
export async function createFeaturesModel(options: FeatureModelPaths, settings: ComputeSettings): Promise<FeaturesModel> {
  // The backend the parent planned (@virnucpro/compute's planCompute), started once, here; both models load onto it.
  const compute = await startCompute(settings);
  // A model that cannot be read is the user's to fix (exit 2), named in one line; running out of GPU memory is not.
  const loadError = (model: ModelLabel, path: string) => (err: unknown) => {
    throw isOutOfMemory(err) ? err : modelLoadError(model, path, err);
  };
  // Both at once: ESM-2's file (11.4 GB for the released 3B model) is read while DNABERT-S is uploaded and calibrated
  // (the backend runs one calibration pass at a time). A failure is said without waiting for ESM-2's load; when both
  // fail, DNABERT-S's error (loaded first before) is the one.
  const dnabertLoading = loadDnabertEmbedder(options.dnabert).catch(loadError('DNABERT-S model', options.dnabert));
  const esmLoading = loadEsm2Embedder(options.esm, { precision: compute.precision }).catch(loadError('ESM-2 model', options.esm));
  const loading = Promise.all([dnabertLoading, esmLoading.catch(async (err: unknown) => {
    await dnabertLoading;
    throw err;
  })]);
  loading.catch(() => {
    for (const model of [dnabertLoading, esmLoading]) model.then((loaded) => loaded.dispose(), () => undefined);
  });
  const [dnabert, esm] = await loading;
  // From here to the end the GPU should be busy: run_summary.json reports how busy it was.
  startGpuUtilizationSampling();
  return featuresModel(dnabert, esm, compute, { peakGpuBytes, gpuUtilization });
}

/** The embedders' part a features model uses (the tests give it fakes). */
export type SequenceEmbedder = Pick<Embedder, 'dim' | 'tokenCount' | 'embed' | 'dispose' | 'counters'>;

/** What the features model reports about the GPU (the tests give fakes; zeros where there is none). */
export interface GpuProbes {
  peakGpuBytes(): number;
  gpuUtilization(): { samples: number; percentSum: number };
}

const NO_GPU: GpuProbes = { peakGpuBytes: () => 0, gpuUtilization: () => ({ samples: 0, percentSum: 0 }) };

/**
 * [DNABERT-S | ESM-2] features from two embedders. This is where a batch of frames meets the models, in a
 * worker or in-process: a batch that runs out of GPU memory is split and retried here (oom-split.ts).
 */
export function featuresModel(
  dnabert: SequenceEmbedder,
  esm: SequenceEmbedder,
  compute: ComputeDescription,
  gpu: GpuProbes = NO_GPU,
  refineInPrecision: <T>(fn: () => T) => T = inRefinementPrecision,
): FeaturesModel {
  const dim = dnabert.dim + esm.dim;
  const counters = { oomSplits: 0, refinedFrames: 0 };
  const split = {
    onSplit: () => counters.oomSplits++,
    describe: (item: FrameItem) => `frame ${item.id} (${item.nucleotide.length} nt, ${item.protein.length} aa)`,
  };
  return {
    name: FEATURES_MODEL_NAME,
    dim,
    dnabertDim: dnabert.dim,
    tokenCount: esmTokenCount,
    // On cuda two in flight keep the GPU fed while the host tokenizes and launches (@virnucpro/compute batchesInFlight).
    concurrentBatches: batchesInFlight(compute.backend),
    async embed(items) {
      // A batch of frames to refine runs every forward pass (halves after running out of memory included) at the
      // refinement precision; a frame's bytes then depend on it alone, as everywhere else.
      const refine = items.some((i) => i.refine === true);
      if (refine && !items.every((i) => i.refine === true)) throw new Error('a batch mixes frames to refine with others: refinement batches are submitted on their own');
      const atPrecision = refine ? refineInPrecision : <T>(fn: () => T) => fn();
      // VirNucPro feeds DNABERT-S the frame's nucleotide slice and ESM-2 its protein; merged as [dnabert | esm].
      // Each model splits on its own: only the one that ran out of memory pays for smaller batches. Both are
      // started before either is awaited, so on a GPU ESM-2's kernels queue right behind DNABERT-S's instead of
      // waiting for its means to come back (same kernels, same results).
      const [nucleotide, protein] = await bothOrFirstError(
        embedSplittingOnOom(items, (part) => atPrecision(() => dnabert.embed(part.map((i) => i.nucleotide))), split),
        embedSplittingOnOom(items, (part) => atPrecision(() => esm.embed(part.map((i) => i.protein))), split),
      );
      if (refine) counters.refinedFrames += items.length;
      return items.map((_, row) => {
        const v = new Float32Array(dim);
        v.set(nucleotide[row], 0);
        v.set(protein[row], dnabert.dim);
        return v;
      });
    },
    describe: () => ({ ...compute, ...(compute.cuda ? { cuda: { ...compute.cuda } } : {}) }),
    counters: () => {
      const esmCounters = esm.counters?.();
      const busy = gpu.gpuUtilization();
      return {
        ...counters,
        fp32Recomputes: esmCounters?.fp32Recomputes ?? 0,
        esmTokens: esmCounters?.tokens ?? 0,
        dnabertTokens: dnabert.counters?.().tokens ?? 0,
        peakGpuBytes: gpu.peakGpuBytes(),
        gpuBusySamples: busy.samples,
        gpuBusyPercentSum: busy.percentSum,
      };
    },
    dispose() {
      dnabert.dispose();
      esm.dispose();
    },
  };
}

/** Both values, or the first one's error (never an unhandled rejection of the other). */
async function bothOrFirstError<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}
