// VirNucPro's MLPClassifier in eval mode: Linear(in→H) → BatchNorm1d(H) (running statistics) → ReLU →
// (Dropout = identity) → Linear(H→2) → softmax. BatchNorm is folded into a per-unit scale and shift once at
// load time. Its arithmetic (mlp-forward.ts, the hidden layer in WebAssembly SIMD) is ~1.7 M multiply-adds per row,
// ~0.4 ms per row on one core — on a GPU still slower than the embeddings that feed it, so ThreadedMlp spreads rows
// over worker threads with the same code (same bytes); no backend to initialise. Sums are kept in double precision (PyTorch uses float32; the difference is
// ~1e-7 on the probabilities, well inside the 1e-5 parity budget).

import type { TensorData } from '@virnucpro/weights';
import { toFloat32 } from '@virnucpro/weights';
import { makeMlpForward, type MlpForward, type MlpParts } from './mlp-forward.js';
import { mlpHiddenWasm } from './wasm/mlp-hidden-bytes.js';

export interface MlpShapes {
  inputDim: number;
  hiddenDim: number;
  numClasses: number;
}

export const BATCH_NORM_EPS = 1e-5;

export class MlpClassifier implements MlpShapes {
  readonly inputDim: number;
  readonly hiddenDim: number;
  readonly numClasses: number;
  private readonly w1: Float32Array; // [H, in]
  private readonly scale: Float64Array; // BN folded: out = (x·w1 + b1 − mean)·γ/√(var+eps) + β
  private readonly shift: Float64Array;
  private readonly w2: Float32Array; // [C, H]
  private readonly b2: Float32Array;
  /** Made at the first predict (the weights go into the kernel's memory then). */
  private forward: MlpForward | undefined;

  private constructor(parts: {
    w1: Float32Array;
    scale: Float64Array;
    shift: Float64Array;
    w2: Float32Array;
    b2: Float32Array;
    shapes: MlpShapes;
  }) {
    this.w1 = parts.w1;
    this.scale = parts.scale;
    this.shift = parts.shift;
    this.w2 = parts.w2;
    this.b2 = parts.b2;
    this.inputDim = parts.shapes.inputDim;
    this.hiddenDim = parts.shapes.hiddenDim;
    this.numClasses = parts.shapes.numClasses;
  }

  /**
   * Builds the classifier from a state dict (names as in MLP_TENSORS, an optional common prefix such
   * as "module." is accepted). Sizes are read from the weights; every mismatch is an error naming the tensor.
   */
  static fromStateDict(tensors: Map<string, TensorData>, source = 'state dict'): MlpClassifier {
    const prefix = recognizeMlpLayout(tensors, source);
    const missing = MLP_TENSORS.filter((name) => !tensors.has(prefix + name));
    if (missing.length) {
      throw new Error(
        `${source}: recognised the VirNucPro MLPClassifier layout${prefix ? ` (${prefix} prefix)` : ''} of the MLP, but ${prefix}${missing[0]} is missing ` +
          `(${missing.length} of the ${MLP_TENSORS.length} tensors it needs)`,
      );
    }
    const get = (name: string, shape: (number | undefined)[]): Float32Array => {
      const t = tensors.get(prefix + name)!;
      if (t.shape.length !== shape.length || shape.some((d, i) => d !== undefined && t.shape[i] !== d)) {
        throw new Error(`${source}: tensor "${prefix + name}" has shape [${t.shape}], expected [${shape.map((d) => d ?? '?')}]`);
      }
      if (!['float32', 'float16', 'bfloat16', 'float64'].includes(t.dtype)) {
        throw new Error(`${source}: tensor "${prefix + name}" has dtype ${t.dtype}, expected a float type`);
      }
      return toFloat32(t);
    };
    const w1Tensor = tensors.get(prefix + 'hidden_layer.weight');
    if (!w1Tensor || w1Tensor.shape.length !== 2) {
      throw new Error(`${source}: "${prefix}hidden_layer.weight" must be a 2-D tensor [hidden, input]`);
    }
    const [hiddenDim, inputDim] = w1Tensor.shape;
    const w2Tensor = tensors.get(prefix + 'output_layer.weight');
    if (!w2Tensor || w2Tensor.shape.length !== 2) {
      throw new Error(`${source}: "${prefix}output_layer.weight" must be a 2-D tensor [classes, hidden]`);
    }
    const numClasses = w2Tensor.shape[0];
    if (numClasses !== 2) throw new Error(`${source}: output_layer has ${numClasses} classes; VirNucPro's MLP has 2 (others, virus)`);

    const w1 = get('hidden_layer.weight', [hiddenDim, inputDim]);
    const b1 = get('hidden_layer.bias', [hiddenDim]);
    const gamma = get('bn1.weight', [hiddenDim]);
    const beta = get('bn1.bias', [hiddenDim]);
    const mean = get('bn1.running_mean', [hiddenDim]);
    const variance = get('bn1.running_var', [hiddenDim]);
    const w2 = get('output_layer.weight', [numClasses, hiddenDim]);
    const b2 = get('output_layer.bias', [numClasses]);

    const scale = new Float64Array(hiddenDim);
    const shift = new Float64Array(hiddenDim);
    for (let h = 0; h < hiddenDim; h++) {
      // PyTorch eval BN: (x − mean) / sqrt(var + eps) · γ + β, with float32 var + eps.
      const s = gamma[h] / Math.sqrt(Math.fround(variance[h] + BATCH_NORM_EPS));
      scale[h] = s;
      shift[h] = (b1[h] - mean[h]) * s + beta[h];
    }
    return new MlpClassifier({ w1, scale, shift, w2, b2, shapes: { inputDim, hiddenDim, numClasses } });
  }

  /** The folded weights, for ThreadedMlp's worker threads. */
  get parts(): MlpParts {
    const { inputDim, hiddenDim, w1, scale, shift, w2, b2 } = this;
    return { inputDim, hiddenDim, w1, scale, shift, w2, b2 };
  }

  /**
   * Class probabilities for `rows` feature rows stored row-major in `features` ([rows, inputDim]).
   * Returns [rows, 2] float32: column 0 = score1 (others), column 1 = score2 (virus).
   */
  predict(features: Float32Array, rows = features.length / this.inputDim): Float32Array {
    checkRows(features, rows, this.inputDim);
    this.forward ??= makeMlpForward(this.parts, mlpHiddenWasm());
    return this.forward(features, rows);
  }
}

/** Throws unless `features` holds `rows` whole rows of `inputDim` values. */
export function checkRows(features: Float32Array, rows: number, inputDim: number): void {
  if (!Number.isInteger(rows) || features.length < rows * inputDim) {
    throw new Error(`MLP input has ${features.length} values, expected a multiple of the input size ${inputDim}`);
  }
}

/** The tensors of VirNucPro's MLPClassifier (train.py / prediction.py), as its state dict names them. */
const MLP_TENSORS = ['hidden_layer.weight', 'hidden_layer.bias', 'bn1.weight', 'bn1.bias', 'bn1.running_mean', 'bn1.running_var', 'output_layer.weight', 'output_layer.bias'];

/**
 * The prefix the checkpoint puts before MLPClassifier's names ('' for the original's whole-module .pth, its state
 * dict or safetensors; e.g. 'module.' from DataParallel), from the first name that ends in one of them; names that
 * follow no such layout are refused with a few of them and what was expected.
 */
function recognizeMlpLayout(tensors: Map<string, TensorData>, source: string): string {
  for (const name of tensors.keys()) {
    const known = MLP_TENSORS.find((t) => name === t || name.endsWith(`.${t}`));
    if (known) return name.slice(0, name.length - known.length);
  }
  const names = [...tensors.keys()].filter((n) => n !== '__metadata__');
  const sample = names.slice(0, 3).join(', ');
  throw new Error(
    `${source}: no VirNucPro MLP layout matched (its tensors: ${sample || 'none'}${names.length > 3 ? ', …' : ''}); ` +
      "expected VirNucPro's MLPClassifier: hidden_layer.weight/.bias, bn1.weight/.bias/.running_mean/.running_var, output_layer.weight/.bias " +
      '(the original 300_model.pth / 500_model.pth, its state dict or safetensors; any prefix such as module.)',
  );
}
