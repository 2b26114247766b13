// Cheap worker plugin for tools/bench/runtime/memory.mjs: a "model" whose embed() costs next to
// nothing, so a run measures the runtime (reading, packing, IPC, ordering) rather than the math.
// Vector of an item: `dim` floats derived from its characters (deterministic, depends on the item only).
export async function createCheapModel(options = {}) {
  const dim = options.dim ?? 64;
  return {
    dim,
    tokenCount: (item) => item.length + 2,
    async embed(items) {
      return items.map((item) => {
        const v = new Float32Array(dim);
        let h = 2166136261;
        for (let i = 0; i < item.length; i++) h = Math.imul(h ^ item.charCodeAt(i), 16777619);
        for (let k = 0; k < dim; k++) {
          h = Math.imul(h ^ k, 16777619);
          v[k] = (h >>> 8) / 2 ** 24;
        }
        return v;
      });
    },
  };
}
