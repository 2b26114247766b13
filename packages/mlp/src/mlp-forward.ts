// The MLP's arithmetic as ONE self-contained factory, so the same code runs on the calling thread
// (MlpClassifier.predict) and in worker threads (ThreadedMlp), which receive it as source text: no
// worker file to locate next to sources, builds or bundles. It must therefore reference nothing outside
// its own body (no imports, no module constants); the WebAssembly bytes come in as an argument.

/** The folded weights: hidden = relu((x·w1ᵀ)·scale + shift); logits = hidden·w2ᵀ + b2. */
export interface MlpParts {
  inputDim: number;
  hiddenDim: number;
  w1: Float32Array; // [H, in]
  scale: Float64Array; // BatchNorm folded: (x·w1 + b1 − mean)·γ/√(var+eps) + β = x·w1·scale + shift
  shift: Float64Array;
  w2: Float32Array; // [2, H]
  b2: Float32Array;
}

/** Class probabilities [rows, 2] (others, virus) of `rows` feature rows stored row-major in `features`. */
export type MlpForward = (features: Float32Array, rows: number) => Float32Array;

// The few WebAssembly JS API types used here (the package compiles without the DOM lib); types only, erased.
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}
interface HiddenKernel {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  hiddenLayer(n: number, H: number, rows: number, w1: number, scale: number, shift: number, x: number, hidden: number, scratch: number): void;
}

/**
 * The MLP of `parts` with its hidden layer (~all of the work) in WebAssembly (`hiddenWasm`: the module of
 * assembly/mlp-hidden.ts, SIMD; ~3× the plain JavaScript loop). Every sum is in double precision over the inputs in
 * order, as the plain loop does, and each row's result depends on that row only: any split of the rows, on any
 * thread, gives the same bytes. The weights are copied into the module's memory once, here.
 */
export function makeMlpForward(parts: MlpParts, hiddenWasm: Uint8Array): MlpForward {
  const { inputDim: n, hiddenDim: H, w1, scale, shift, w2, b2 } = parts;
  const BLOCK = 256; // rows per kernel call: bounds the module's memory whatever the caller passes
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const kernel = new wasm.Instance(new wasm.Module(hiddenWasm), {
    env: {
      abort: () => {
        throw new Error('MLP kernel aborted');
      },
    },
  }).exports as unknown as HiddenKernel;
  // Layout after the module's first page (its own): w1 f32, scale f64, shift f64, x f32 block, hidden f64 block, scratch f64.
  let top = 65536;
  const place = (bytes: number) => {
    const at = top;
    top += Math.ceil(bytes / 16) * 16;
    return at;
  };
  const w1At = place(H * n * 4);
  const scaleAt = place(H * 8);
  const shiftAt = place(H * 8);
  const xAt = place(BLOCK * n * 4);
  const hiddenAt = place(BLOCK * H * 8);
  const scratchAt = place(4 * n * 8);
  const memory = kernel.memory;
  memory.grow(Math.max(0, Math.ceil(top / 65536) - memory.buffer.byteLength / 65536));
  new Float32Array(memory.buffer, w1At, H * n).set(w1);
  new Float64Array(memory.buffer, scaleAt, H).set(scale);
  new Float64Array(memory.buffer, shiftAt, H).set(shift);
  const x = new Float32Array(memory.buffer, xAt, BLOCK * n);
  const hidden = new Float64Array(memory.buffer, hiddenAt, BLOCK * H);
  // Every page of the blocks touched now rather than by the first rows (ThreadedMlp also makes one call at its start):
  // in a GPU worker the first call of 12 of 15 threads took 0.7–1.0 s where the next took ~25 ms, and the GPU idled
  // ~1 s waiting for its first batches' scores (H200 host, 2026-11-28; with both, 40–65 ms a batch from the first).
  x.fill(0);
  hidden.fill(0);
  new Float64Array(memory.buffer, scratchAt, 4 * n).fill(0);

  return (features, rows) => {
    const out = new Float32Array(rows * 2);
    for (let r0 = 0; r0 < rows; r0 += BLOCK) {
      const count = Math.min(BLOCK, rows - r0);
      x.set(features.subarray(r0 * n, (r0 + count) * n));
      kernel.hiddenLayer(n, H, count, w1At, scaleAt, shiftAt, xAt, hiddenAt, scratchAt);
      for (let i = 0; i < count; i++) {
        let z0 = b2[0];
        let z1 = b2[1];
        const ho = i * H;
        for (let h = 0; h < H; h++) {
          const v = hidden[ho + h];
          z0 += v * w2[h];
          z1 += v * w2[H + h];
        }
        // softmax over two logits, stable form
        const m = z0 > z1 ? z0 : z1;
        const e0 = Math.exp(z0 - m);
        const e1 = Math.exp(z1 - m);
        const sum = e0 + e1;
        out[(r0 + i) * 2] = e0 / sum;
        out[(r0 + i) * 2 + 1] = e1 / sum;
      }
    }
    return out;
  };
}
