import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpSegmentMean, type VnpSegmentMeanAttrs } from '@virnucpro/ops';
import type { CudaBackend } from '../backend-cuda.js';
import { segmentMeanSource } from '../cuda/segment-mean.js';

export const segmentMeanConfig: KernelConfig = {
  kernelName: VnpSegmentMean,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { x, cuSeqlens } = inputs as { x: TensorInfo; cuSeqlens: TensorInfo };
    const { skipStart, skipEnd } = attrs as VnpSegmentMeanAttrs;
    const segments = cuSeqlens.shape[0] - 1;
    const d = x.shape[1];
    const y = cuda.makeOutput([segments, d]);
    if (segments > 0) {
      cuda.launch(segmentMeanSource, 'segment_mean', [], [Math.ceil(d / 128), segments, 1], [128, 1, 1], 0, 'pppiii',
        cuda.ptr(x), cuda.ptr(cuSeqlens), cuda.ptr(y), d, skipStart, skipEnd);
    }
    return y;
  }) as KernelFunc,
};
