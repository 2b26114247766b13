import type { BackendName, Precision } from '@virnucpro/ops';
import { backends } from './backends.js';

/**
 * A setting the user gave that cannot work (a precision the backend does not compute in): the CLI says it in
 * one line and exits 2 (its `code`).
 */
export class ComputeSettingError extends Error {
  override readonly name = 'ComputeSettingError';
  readonly code = 'BAD_INPUT';
}

/** How an error explains a backend that `auto` picked. */
export const AUTO_NOTE = ' (picked by --backend auto: no usable CUDA GPU here; --backend cuda says why)';

/** `--precision`'s choices: every precision some backend of this build computes in. */
export const precisionChoices: readonly Precision[] = [...new Set(Object.values(backends).flatMap((b) => b.precisions))];

/** The one default: the backend's own (fp16 on cuda, fp32 on every other backend). */
export function defaultPrecision(backend: BackendName): Precision {
  return backends[backend].defaultPrecision;
}

/**
 * The precision `backend` computes in: what was asked for, else its default. A precision it does not offer is a
 * ComputeSettingError (`autoNote` explains how `auto` got there).
 */
export function resolvePrecision(backend: BackendName, requested: Precision | undefined, autoNote = ''): Precision {
  const { precisions } = backends[backend];
  if (requested === undefined) return defaultPrecision(backend);
  if (precisions.includes(requested)) return requested;
  if (precisions.length > 1) {
    throw new ComputeSettingError(`--precision ${requested}: the ${backend} backend${autoNote} computes in ${precisions.join(', ')} only`);
  }
  throw new ComputeSettingError(
    `--precision ${requested} needs --backend cuda; the ${backend} backend${autoNote} computes in ${precisions.join(', ')} only (drop --precision, or use --precision ${precisions[0]})`,
  );
}

/**
 * The more accurate precision a backend computing in `precision` embeds at for a second look at an item whose result
 * lies near a decision (@virnucpro/ops inRefinementPrecision): fp8 → bf16, about 1.6× fp8's cost per token on an
 * H100. Other precisions have none (undefined): their error is already small next to fp8's.
 */
export function refinementPrecision(precision: Precision): Precision | undefined {
  return precision === 'fp8' ? 'bf16' : undefined;
}

/**
 * What a run in this precision should tell the user before it starts, in one line: fp8 trades accuracy for speed
 * (figures of docs/usage.md, ESM-2 3B on an H100); the other precisions need no word.
 */
export function precisionNote(precision: Precision): string | undefined {
  if (precision !== 'fp8') return undefined;
  return 'precision fp8 is experimental: ~1.5x bf16 on an H100, but less accurate (mean embeddings at cosine >= 0.999 of fp32, bf16 >= 0.9999), so a frame scored near 0.5 could change label: predict embeds those again in bf16 (--refine-margin); see docs/usage.md';
}

/**
 * Checks `--precision` against `--backend` as typed (before anything loads). With `auto` the check waits
 * until the backend is known (planCompute).
 */
export function checkPrecisionOption(backend: BackendName | 'auto', precision: Precision | undefined): void {
  if (backend !== 'auto') resolvePrecision(backend, precision);
}
