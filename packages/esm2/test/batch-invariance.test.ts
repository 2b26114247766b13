import * as tf from '@tensorflow/tfjs-core';
import { type BackendName } from '@virnucpro/ops';
import { describeBatchDependence, findBatchDependence, invarianceSeeds, randomInt, randomLengths, randomModelShape, rowsAndMeansPerItem, seededRandom } from '@virnucpro/ops/testing';
import { describe, expect, it } from 'vitest';
import { Esm2Model, randomEsm2Weights, type Esm2Config } from '../src/index.js';
import { clsId, eosId, maskId } from '../src/alphabet.js';
import { startCompute } from '@virnucpro/compute';

// The batch-invariance rule (docs/architecture.md) on the whole ESM-2 forward pass: for a random model shape
// (odd head counts, hidden sizes off multiples of 8, 1–8 layers) and random proteins (1 residue to the maximum,
// some with <mask>, which switches the embedding to per-row scales), every protein's last hidden state and mean
// are the same bytes alone as in full batches at other offsets, reversed, or beside other neighbours.
const settings: Record<'cpu' | 'wasm' | 'onednn', { seeds: number[]; maxHidden: number; maxTokens: number }> = {
  cpu: { seeds: [1, 2], maxHidden: 96, maxTokens: 60 },
  wasm: { seeds: [1, 2, 3, 4], maxHidden: 256, maxTokens: 180 },
  // oneDNN's GEMMs in fixed 128-row calls: sequences long enough that a batch spans several calls.
  onednn: { seeds: [1, 2, 3, 4], maxHidden: 256, maxTokens: 300 },
};
// onednn only where libdnnl is installed (CI installs it when it can; the README's machines may not have it).
const onednnHere = await startCompute({ backend: 'onednn' }).then(() => true, () => false);

describe.each(onednnHere ? (['cpu', 'wasm', 'onednn'] as const) : (['cpu', 'wasm'] as const))('ESM-2 embeddings are batch-invariant on %s', (backend: BackendName & ('cpu' | 'wasm' | 'onednn')) => {
  const { seeds, maxHidden, maxTokens } = settings[backend];
  it.each(invarianceSeeds(seeds))('random model shape and proteins, seed %i', async (seed) => {
    expect((await startCompute({ backend })).backend).toBe(backend);
    const rand = seededRandom(100 + seed);
    // Seed 2 has one head: a batch of one (segment × head) product took another path on wasm.
    const shape = randomModelShape(rand, { maxHidden, evenHeadSize: true, ...(seed === 2 ? { heads: 1 } : {}) });
    const config: Esm2Config = {
      numLayers: randomInt(rand, 1, 8), embedDim: shape.heads * shape.headSize, numHeads: shape.heads, ffnDim: shape.ffn,
      vocabSize: 33, layerNormEps: 1e-5, tokenDropout: true, name: `random-${seed}`,
    };
    const model = new Esm2Model(config, randomEsm2Weights(config, seed));
    const before = tf.memory().numTensors;
    const lengths = randomLengths(rand, 7, maxTokens, 3);
    const proteins = lengths.map((n) => Int32Array.from({ length: n }, (_, j) =>
      j === 0 ? clsId : j === n - 1 ? eosId : rand() < 0.05 ? maskId : randomInt(rand, 4, 23)));
    // One packed call: each protein's hidden rows, then its mean over residues (what meanEmbeddings returns).
    const embed = (batch: Int32Array[]) => rowsAndMeansPerItem(() => model.forwardPacked(batch), 1);
    const found = await findBatchDependence(proteins, lengths, embed, rand);
    model.dispose();
    expect(describeBatchDependence(found, lengths), `${config.numLayers} layers, ${shape.heads} heads × ${shape.headSize}, ffn ${shape.ffn}`).toBe('');
    expect(tf.memory().numTensors).toBeLessThanOrEqual(before);
  });
});
