import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { queryBlockRows, VnpPackedAttention, type VnpPackedAttentionAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * Attention inside each segment of the packed stream, with no padding (row-jobs.ts' attentionSegments: two
 * oneDNN GEMMs per segment and head, whose shapes are fixed by the segment's length and the head size alone, and
 * the softmax, with ALiBi when given, in WebAssembly SIMD), the segments split among the backend's threads by
 * their cost. Long segments take their query rows in blocks (ops' queryBlockRows, as the composite does), so the
 * scores held at once stay under 2^24 floats and memory grows linearly with the length (a 35,000-residue protein
 * needed H·L² floats, ~20 GB at 4 heads, past WebAssembly's 4 GB).
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
    const out = cpu.sharedFloats(rows * width);
    if (rows === 0) return cpu.makeTensorInfo([rows, width], 'float32', out);
    const { lengths, offsets } = layout;
    const blockRows = lengths.map((L) => queryBlockRows(H, L));
    const rotary = cos && sinSigned && positions ? { cos: cpu.floats(cos), sinSigned: cpu.floats(sinSigned), positions: cpu.ints(positions) } : null;
    const slopes = alibiSlopes ? Float32Array.from(alibiSlopes) : null;
    const input = cpu.sharedInput(cpu.floats(qkv));
    // Per segment, the two products (2·L²·hd per head) and the softmax (~L² per head, a few times dearer an element).
    const cost = (s: number) => lengths[s] * (lengths[s] * (hd + 8) + hd);
    cpu.runRows('attentionSegments', lengths.length, ({ from, to }) => ({
      qkv: input.values, out, width, heads: H, scale, alibiSlopes: slopes, offsets, lengths, blockRows, first: from, last: to, rotary,
    }), cost);
    input.done();
    return cpu.makeTensorInfo([rows, width], 'float32', out);
  }) as KernelFunc,
};
