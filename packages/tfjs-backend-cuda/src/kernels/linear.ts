import { type KernelConfig, type KernelFunc, type TensorInfo } from '@tensorflow/tfjs-core';
import { VnpLinear, type VnpLinearAttrs } from '@virnucpro/ops';
import { blocks, type CudaBackend, type Fp8LayerRole } from '../backend-cuda.js';
import type { Fp8GemmMode } from '../cublaslt.js';
import type { DevicePtr } from '../cuda-driver.js';
import { elementwiseSource } from '../cuda/elementwise.js';
import { fp8Source } from '../cuda/fp8.js';
import { quantizeRowsLaunch } from '../fp8-quantize-rows.js';
import { elementsPerWord } from '../precision.js';

/**
 * y = act(x·W + b) + residual: one cuBLASLt GEMM with the bias epilogue and the residual as C (β = 1).
 * The GELU: in fp16/bf16 cuBLASLt's GELU epilogue (its tanh form, on the fp32 sum: within 5e-4 of the erf GELU,
 * under the storage's rounding, and one pass over fc1's output less); in fp32 the erf GELU in place after the GEMM.
 * With both a GELU and a residual (no model does this) the residual is added after the GELU by a separate kernel.
 *
 * fp8: the GEMM is FP8 E4M3 (fp32 accumulation, bf16 out) on the input's fp8 rows — written by the layer norm that
 * produced x, or by fc1's GELU epilogue, else by a quantisation pass — and the weight quantised once per output
 * channel; after fc1 the GELU kernel writes fc2's fp8 rows (with their per-row scales) instead of bf16. With a layer
 * norm's static rows (qkv, fc1: CudaBackend.fp8StaticScales) the GEMM takes per-tensor scales, and fc1 writes fc2's
 * E4M3 rows itself (tensorScaledGemm). `out`'s input rows come from packed attention (fp8StaticAttention).
 * A layer without GELU told its rows' sequences (`cuSeqlens`) takes the weight rounding's effect on each sequence's
 * mean input row out of that sequence's rows after the GEMM (fp8SequenceCorrection); the others take the bias
 * corrected on the calibration mean (fp8CorrectedBias).
 */
export const linearConfig: KernelConfig = {
  kernelName: VnpLinear,
  backendName: 'cuda',
  kernelFunc: (({ inputs, attrs, backend }) => {
    const cuda = backend as CudaBackend;
    const { x, weight, bias, residual, cuSeqlens } = inputs as { x: TensorInfo; weight: TensorInfo; bias?: TensorInfo; residual?: TensorInfo; cuSeqlens?: TensorInfo };
    const gelu = (attrs as VnpLinearAttrs).activation === 'gelu';
    const [rows, inner] = x.shape;
    const cols = weight.shape[1];
    const y = cuda.makeOutput([rows, cols]);
    if (rows === 0) return y;
    const fusedResidual = residual && !gelu ? cuda.ptr(residual) : undefined;
    // A calibration pass (every layer in bf16) records this layer's input for its bias correction.
    if (cuda.fp8Active && inner % 16 === 0 && cols % 16 === 0) cuda.recordFp8Input(x, weight);
    const fp8 = cuda.fp8Active && inner % 16 === 0 && cols % 16 === 0 && !cuda.fp8Bf16Layers.has(fp8Role(cuda, x, inner, gelu));
    // fc1 (GELU, no residual) with fc2 in fp8: the GELU kernel writes fc2's fp8 rows and finishes the GEMM's epilogue.
    const geluToFp8 = gelu && !residual && cuda.fp8Active && cols % 16 === 0 && !cuda.fp8Bf16Layers.has('fc2');
    // FP8 GEMMs take the bias corrected for their weight copy's rounding (where a calibration pass ran), or, without
    // GELU and told the sequences, the plain bias and each sequence's own correction after the GEMM.
    const perSequence = fp8 && !gelu && cuSeqlens !== undefined && cuda.fp8SequenceCorrection;
    const fp8BiasFor = (scales: 'rows' | 'tensor') => (perSequence ? bias : cuda.fp8CorrectedBias(weight, bias, scales));
    const tensorScaled = fp8 && cuda.fp8Rows(x).perTensor ? tensorScaledGemm(cuda, x, weight, fp8BiasFor('tensor'), y, fusedResidual, gelu && !residual, geluToFp8) : undefined;
    if (tensorScaled === 'e4m3') return y;
    const fp8Bias = fp8 && !tensorScaled ? fp8BiasFor('rows') : bias;
    const fp8Gemm = tensorScaled ?? (fp8 ? cuda.gemmFp8(rows, inner, cols, cuda.fp8Rows(x, true), cuda.fp8Weight(weight), cuda.ptr(y), fp8Bias && cuda.ptr(fp8Bias), fusedResidual, geluToFp8, gelu && !residual) : undefined);
    const mode = fp8Gemm?.mode;
    if (perSequence && mode) cuda.fp8SequenceCorrect(x, weight, tensorScaled ? 'tensor' : 'rows', cuSeqlens, cuda.ptr(y));
    // GELU already applied by the FP8 GEMM's epilogue (the fused mode took it).
    const geluDone = fp8Gemm?.gelu === true;
    const geluInGemm = gelu && !residual && !geluToFp8 && !mode && cuda.geluEpilogue && cuda.floatStorage !== 'f32';
    if (!mode) cuda.gemm(rows, inner, cols, cuda.ptr(x), cuda.ptr(weight), cuda.ptr(y), bias && cuda.ptr(bias), fusedResidual, geluInGemm);
    const n = rows * cols;
    const vec = elementsPerWord(cuda.floatStorage);
    if (geluToFp8) {
      // y's bf16 is written only if something reads it (markStale).
      const finishBias = mode && mode !== 'fused' && fp8Bias ? cuda.ptr(fp8Bias) : 0;
      const scales = mode === 'unscaled' ? [cuda.fp8Rows(x).scales, cuda.fp8Weight(weight).scales] : [0, 0];
      const q = cuda.attachFp8(y, rows, cols, 'gelu');
      const { kernel, block } = quantizeRowsLaunch(cols, vec, { gelu: !geluDone, inRegisters: cuda.fp8RowsInRegisters });
      cuda.launch(fp8Source, kernel, [], [rows, 1, 1], block, 0, 'pppippp', cuda.ptr(y), q.data, q.scales, cols, finishBias, ...scales);
      cuda.markStale(y);
      return y;
    }
    if (gelu && !geluInGemm && !geluDone) {
      if (n % vec === 0) cuda.launch(elementwiseSource, 'gelu_inplace_vec', [], blocks(n / vec), [256, 1, 1], 0, 'pl', cuda.ptr(y), n / vec);
      else cuda.launch(elementwiseSource, 'gelu_inplace', [], blocks(n), [256, 1, 1], 0, 'pl', cuda.ptr(y), n);
    }
    if (gelu && residual) {
      cuda.launch(elementwiseSource, 'binary', [], blocks(n), [256, 1, 1], 0, 'pppliii', cuda.ptr(y), cuda.ptr(residual), cuda.ptr(y), n, 0, cols, 0);
    }
    return y;
  }) as KernelFunc,
};

/** The role of this linear layer for the fp8 path (see Fp8LayerRole): told by where its input's fp8 rows came from
 * (attention's, a pass's or none: `out`). */
function fp8Role(cuda: CudaBackend, x: TensorInfo, inner: number, gelu: boolean): Fp8LayerRole {
  const source = cuda.fp8SourceOf(x, inner);
  return source === 'gelu' ? 'fc2' : source === 'norm' ? (gelu ? 'fc1' : 'qkv') : 'out';
}

/**
 * The FP8 GEMM on a layer norm's static rows (per-tensor scale), with the weight's per-tensor copy: cuBLASLt's
 * per-tensor mode, bias, GELU and residual in its epilogue. fc1 feeding an fp8 fc2 (`geluToFp8`, GELU in the epilogue) writes fc2's E4M3 rows itself, with the static scale of fp8OutputScales, and no T ('e4m3':
 * the rows get that scale as per-row scales, for fc2's outer-vector GEMM). Else the mode as gemmFp8 answers it, and
 * a layer without GELU or residual on a layer norm's rows (qkv) leaves what a static bound of its output derives
 * from, for packed attention; undefined where cuBLASLt refused: the caller re-quantises x per row and takes gemmFp8.
 */
function tensorScaledGemm(cuda: CudaBackend, x: TensorInfo, weight: TensorInfo, bias: TensorInfo | undefined, y: TensorInfo, residual: DevicePtr | undefined, gelu: boolean, geluToFp8: boolean): 'e4m3' | { mode: Fp8GemmMode; gelu: boolean } | undefined {
  const [rows, inner] = x.shape;
  const cols = weight.shape[1];
  const xRows = cuda.fp8Rows(x);
  const w8 = cuda.fp8Weight(weight, 'tensor');
  const biasPtr = bias && cuda.ptr(bias);
  if (geluToFp8 && cuda.geluEpilogue) {
    const scales = cuda.fp8OutputScales(weight, bias, xRows.scales, 'gelu'); // [bound, scale, 1/scale]
    const q = cuda.attachFp8(y, rows, cols, 'gelu');
    if (cuda.gemmFp8Tensor(rows, inner, cols, xRows, w8, cuda.ptr(y), biasPtr, undefined, true, { data: q.data, scale: scales + 8 })) {
      cuda.launch(fp8Source, 'fill_from', [], blocks(rows), [256, 1, 1], 0, 'ppi', q.scales, scales + 4, rows);
      cuda.markStale(y);
      return 'e4m3';
    }
  }
  // GELU in the epilogue only where the storage path would take it (geluEpilogue); else the caller's kernel applies it.
  const ran = cuda.gemmFp8Tensor(rows, inner, cols, xRows, w8, cuda.ptr(y), biasPtr, residual, gelu && cuda.geluEpilogue);
  // A norm's rows carry its bounds [scale, 2-norm bound] as their scale pointer.
  if (ran && !gelu && residual === undefined && xRows.source === 'norm') cuda.setFp8StaticProducer(y, weight, bias, xRows.scales);
  return ran;
}
