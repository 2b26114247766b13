// A simulated device for tools/bench/host-pipeline: a worker plugin that scores frames at once, so that a
// `virnucpro predict` run measures the host side alone (reading, translation, packing, the pool's messages, the
// checkpoint, ordering, writing). A frame's two scores come from its id (FNV-1a), deterministic and its own.
// Never a backend of the command: the bench hands it to runPredict directly.
export async function simulatedScorerFactory(options) {
  const featureDim = options?.featureDim ?? 3328;
  return {
    name: 'simulated scorer',
    dim: 2,
    concurrentBatches: 2,
    tokenCount: (frame) => frame.protein.length + 2,
    async embed(frames) {
      return frames.map((frame) => {
        let h = 0x811c9dc5;
        for (let i = 0; i < frame.id.length; i++) h = Math.imul(h ^ frame.id.charCodeAt(i), 0x01000193);
        const virus = (h >>> 8) / 2 ** 24;
        return Float32Array.from([1 - virus, virus]);
      });
    },
    describe: () => ({ backend: 'cpu', precision: 'fp32', featureDim }),
    dispose() {},
  };
}
