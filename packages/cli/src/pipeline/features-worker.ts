// The worker plugin of `virnucpro predict`: loaded by @virnucpro/runtime in each worker process (by
// absolute path), or in-process when --workers 0. It holds BOTH embedding models so that a frame travels
// to a device once and comes back as its finished VirNucPro feature [DNABERT-S mean | ESM-2 mean].
import { createDnabertEmbedder } from '@virnucpro/dnabert';
import { createEsm2Embedder } from '@virnucpro/esm2';
import type { BackendName } from '@virnucpro/ops';
import { esmTokenCount, type FrameItem } from './frame-item.js';

export interface FeaturesWorkerOptions {
  esm: string;
  dnabert: string;
}

export interface FeaturesModel {
  readonly dim: number;
  readonly dnabertDim: number;
  readonly esmDim: number;
  readonly backend: BackendName;
  tokenCount(item: FrameItem): number;
  /** DNABERT-S tokens of a frame (telemetry). */
  dnabertTokenCount(item: FrameItem): number;
  embed(items: FrameItem[]): Promise<Float32Array[]>;
  dispose(): void;
}

export async function createFeaturesModel(options: FeaturesWorkerOptions, ctx: { backend?: BackendName | 'auto' } = {}): Promise<FeaturesModel> {
  const backend = ctx.backend ?? 'auto';
  const dnabert = await createDnabertEmbedder({ model: options.dnabert, backend });
  const esm = await createEsm2Embedder({ model: options.esm, backend });
  const dim = dnabert.dim + esm.dim;
  return {
    dim,
    dnabertDim: dnabert.dim,
    esmDim: esm.dim,
    backend: esm.backend,
    tokenCount: esmTokenCount,
    dnabertTokenCount: (item) => dnabert.tokenCount(item.nucleotide),
    async embed(items) {
      // VirNucPro feeds DNABERT-S the frame's nucleotide slice and ESM-2 its protein; merged as [dnabert | esm].
      const nucleotide = await dnabert.embedBatch(items.map((i) => i.nucleotide));
      const protein = await esm.embedBatch(items.map((i) => i.protein));
      return items.map((_, row) => {
        const v = new Float32Array(dim);
        v.set(nucleotide[row], 0);
        v.set(protein[row], dnabert.dim);
        return v;
      });
    },
    dispose() {
      dnabert.dispose();
      esm.dispose();
    },
  };
}

/** The runtime's factory signature: (options, ctx) → WorkerModel. */
export const featuresWorkerFactory = (options: unknown, ctx: { backend: BackendName }) => createFeaturesModel(options as FeaturesWorkerOptions, ctx);
