import * as tf from '@tensorflow/tfjs-core';
import { VnpRotaryQkv, type VnpRotaryQkvAttrs, type VnpRotaryQkvInputs } from './kernel-names.js';
import { expectCount, expectDtype, expectRank, expectShape, runVnpKernel } from './op-checks.js';

/**
 * Rotary embedding (half-split, `rotate_half`) of the q and k parts of a fused projection, kernel
 * `VnpRotaryQkv`. qkv [N, 3·H·hd] (q | k | v); cos, sinSigned [P, hd] tables (sinSigned = −sin in the
 * first half, +sin in the second); positions int32 [N], the position of each row (< P). Returns
 * [N, 3·H·hd] with every q and k head rotated by its row's position and v unchanged.
 */
export function rotaryQkv(
  qkv: tf.Tensor2D,
  cos: tf.Tensor2D,
  sinSigned: tf.Tensor2D,
  positions: tf.Tensor1D,
  numHeads: number,
): tf.Tensor2D {
  expectCount('rotaryQkv', 'numHeads', numHeads, 1);
  expectRank('rotaryQkv', 'qkv', qkv, 2);
  const [rows, width] = qkv.shape;
  if (width % (3 * numHeads) !== 0) throw new Error(`rotaryQkv: qkv width ${width} is not 3 × ${numHeads} heads × head size`);
  expectRotary('rotaryQkv', width / (3 * numHeads), cos, sinSigned, positions, rows);
  const inputs: VnpRotaryQkvInputs = { qkv, cos, sinSigned, positions };
  const attrs: VnpRotaryQkvAttrs = { numHeads };
  return runVnpKernel(VnpRotaryQkv, inputs, attrs);
}

/** The checks of rotary tables and positions for head size `hd` and `rows` rows (rotaryQkv, packedAttention). */
export function expectRotary(op: string, hd: number, cos: tf.Tensor, sinSigned: tf.Tensor, positions: tf.Tensor, rows: number): void {
  if (hd % 2 !== 0) throw new Error(`${op}: head size ${hd} must be even (its two halves are rotated together)`);
  expectRank(op, 'cos', cos, 2);
  if (cos.shape[1] !== hd) throw new Error(`${op}: cos is [${cos.shape}], expected [positions, ${hd}] for head size ${hd}`);
  expectShape(op, 'sinSigned', sinSigned, cos.shape);
  expectShape(op, 'positions', positions, [rows]);
  expectDtype(op, 'positions', positions, 'int32');
}
