import type { KernelConfig, KernelFunc, TensorInfo } from '@tensorflow/tfjs-core';
import { VnpSegmentMean, type VnpSegmentMeanAttrs } from '@virnucpro/ops';
import type { OnednnBackend } from '../backend-onednn.js';

/**
 * Mean of each segment's rows, in one pass over the rows (the composite's tfjs sum transposes every segment
 * first: ~2 % of DNABERT-S's calling thread). The same bytes as the composite: per column, the rows added in
 * order into a double from 0, rounded to float32, then divided by the count in float32.
 */
export const segmentMeanConfig: KernelConfig = {
  kernelName: VnpSegmentMean,
  backendName: 'onednn',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cpu = backend as OnednnBackend;
    const { x } = inputs as { x: TensorInfo };
    const { layout, skipStart, skipEnd } = attrs as VnpSegmentMeanAttrs;
    const d = x.shape[1];
    const values = cpu.floats(x);
    const out = new Float32Array(layout.lengths.length * d);
    const sum = new Float64Array(d);
    layout.lengths.forEach((n, s) => {
      const count = n - skipStart - skipEnd;
      const first = layout.offsets[s] + skipStart;
      sum.fill(0);
      for (let r = first; r < first + count; r++) {
        const row = r * d;
        for (let c = 0; c < d; c++) sum[c] += values[row + c];
      }
      for (let c = 0; c < d; c++) out[s * d + c] = Math.fround(sum[c]) / count;
    });
    return cpu.makeTensorInfo([layout.lengths.length, d], 'float32', out);
  }) as KernelFunc,
};
