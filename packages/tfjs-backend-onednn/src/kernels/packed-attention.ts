import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { queryBlockRows, VnpPackedAttention, type VnpPackedAttentionAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * Attention inside each segment of the packed stream, with no padding: per segment of L rows and per head, the
 * scores are one oneDNN GEMM (q·kᵀ, L×hd·hd×L, read in place from the fused qkv through its leading dimension),
 * the softmax (with ALiBi when given) runs in WebAssembly SIMD over all heads' rows, and a second GEMM (P·v)
 * writes the head's columns of the output. Every call's shape is fixed by L and the head size alone, so a
 * segment's output does not depend on the rest of the batch. With rotary tables, q and k are rotated first.
 * Long segments take their query rows in blocks (ops' queryBlockRows, as the composite does), so the scores held
 * at once stay under 2^24 floats and memory grows linearly with the length (a 35,000-residue protein needed
 * H·L² floats, ~20 GB at 4 heads, past WebAssembly's 4 GB). With ALiBi (DNABERT-S), a segment in one block gets
 * its bias inside the softmax kernel (which takes a row's position from its place in the head's L×L matrix); a
 * block of a longer one gets it here first (alibiBlock), in the same float32 arithmetic.
 */
export const packedAttentionConfig: KernelConfig = {
  kernelName: VnpPackedAttention,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { qkv, cos, sinSigned, positions } = inputs as { qkv: TensorInfo; cos?: TensorInfo; sinSigned?: TensorInfo; positions?: TensorInfo };
    const { numHeads: H, scale, alibiSlopes, layout } = attrs as unknown as VnpPackedAttentionAttrs;
    const [rows, w3] = qkv.shape;
    const width = w3 / 3;
    const hd = width / H;
    const out = new Float32Array(rows * width);
    if (rows === 0) return cpu.makeTensorInfo([rows, width], 'float32', out);
    const { wasm, onednn } = cpu;
    const blockRows = (L: number) => queryBlockRows(H, L);
    const scores = Math.max(...layout.lengths.map((L) => H * blockRows(L) * L));
    const rotary = cos && sinSigned && positions;
    const [q, o, s, c, sn, pos] = wasm.layout(rows * w3, rows * width, scores, rotary ? cos.shape[0] * hd : 0, rotary ? sinSigned.shape[0] * hd : 0, rotary ? rows : 0);
    wasm.f32(q, rows * w3).set(cpu.floats(qkv));
    if (rotary) {
      wasm.f32(c, cos.shape[0] * hd).set(cpu.floats(cos));
      wasm.f32(sn, sinSigned.shape[0] * hd).set(cpu.floats(sinSigned));
      wasm.i32(pos, rows).set(cpu.ints(positions));
      wasm.kernels.rotaryQk(q, rows, H, hd, c, sn, pos);
    }
    const qAt = wasm.address(q);
    const oAt = wasm.address(o);
    const sAt = wasm.address(s);
    layout.lengths.forEach((L, segment) => {
      const first = layout.offsets[segment];
      const rowAt = qAt + first * w3 * 4;
      const B = blockRows(L);
      // Query rows [start, start + n) against all L keys; one block (start 0, n = L) unless the segment is long.
      for (let start = 0; start < L; start += B) {
        const n = Math.min(B, L - start);
        const queryAt = rowAt + start * w3 * 4;
        for (let h = 0; h < H; h++) {
          onednn.sgemm(true, n, L, hd, scale, queryAt + h * hd * 4, w3, rowAt + (width + h * hd) * 4, w3, 0, sAt + h * n * L * 4, L);
        }
        if (alibiSlopes && n === L) for (let h = 0; h < H; h++) wasm.kernels.softmaxRows(s + h * n * L * 4, n, L, alibiSlopes[h]);
        else {
          if (alibiSlopes) alibiBlock(wasm.f32(s, H * n * L), alibiSlopes, start, n, L);
          wasm.kernels.softmaxRows(s, H * n, L, 0);
        }
        for (let h = 0; h < H; h++) {
          onednn.sgemm(false, n, hd, L, 1, sAt + h * n * L * 4, L, rowAt + (2 * width + h * hd) * 4, w3, 0, oAt + ((first + start) * width + h * hd) * 4, width);
        }
      }
    });
    out.set(wasm.f32(o, rows * width));
    return cpu.makeTensorInfo([rows, width], 'float32', out);
  }) as KernelFunc,
};

/**
 * Adds the ALiBi bias −slope_h·|i − j| to the scores of query rows i ∈ [start, start + n) of every head (laid out
 * [H, n, L]), as the softmax kernel does for a whole segment: a float32 product, then a float32 difference (the
 * Float32Array store rounds the exact double difference of two float32 values, which is the float32 difference).
 */
function alibiBlock(scores: Float32Array, slopes: ArrayLike<number>, start: number, n: number, L: number): void {
  for (let h = 0; h < slopes.length; h++) {
    const slope = Math.fround(slopes[h]);
    for (let r = 0; r < n; r++) {
      const i = start + r;
      const row = (h * n + r) * L;
      for (let j = 0; j < L; j++) scores[row + j] -= Math.fround(slope * Math.abs(i - j));
    }
  }
}
