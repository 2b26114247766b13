// A simulated device for tools/bench/host-pipeline: a worker plugin that scores frames at once, so that a
// `virnucpro predict` run measures the host side alone (reading, translation, packing, the pool's messages, the
// checkpoint, ordering, writing). A frame's two scores come from its id (FNV-1a), deterministic and its own.
// Never a backend of the command: the bench hands it to runPredict directly.
// With `withFeatures` (predict --save-embeddings) each frame's featureDim features follow its scores, as the real
// scoring model sends them: values from the id hash, so what crosses to the main process is the real size.
export async function simulatedScorerFactory(options) {
  const featureDim = options?.featureDim ?? 3328;
  const withFeatures = options?.withFeatures === true;
  return {
    name: 'simulated scorer',
    dim: withFeatures ? 2 + featureDim : 2,
    concurrentBatches: 2,
    tokenCount: (frame) => frame.protein.length + 2,
    async embed(frames) {
      return frames.map((frame) => {
        let h = 0x811c9dc5;
        for (let i = 0; i < frame.id.length; i++) h = Math.imul(h ^ frame.id.charCodeAt(i), 0x01000193);
        const virus = (h >>> 8) / 2 ** 24;
        if (!withFeatures) return Float32Array.from([1 - virus, virus]);
        const row = new Float32Array(2 + featureDim);
        row[0] = 1 - virus;
        row[1] = virus;
        for (let k = 2; k < row.length; k++) row[k] = ((h ^ k) & 0xffff) / 65536;
        return row;
      });
    },
    describe: () => ({ backend: 'cpu', precision: 'fp32', featureDim }),
    dispose() {},
  };
}
