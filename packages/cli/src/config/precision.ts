import type { BackendName, Precision } from '@virnucpro/ops';
import { UsageError } from '../errors.js';

/**
 * Checks `--precision` against `--backend` as typed (a usage error, before anything loads): fp16 and bf16
 * exist only on `cuda`. With `auto` the check waits until the backend is known (resolvePrecision).
 */
export function checkPrecisionOption(backend: BackendName | 'auto', precision: Precision | undefined): void {
  if (backend !== 'auto') resolvePrecision(backend, precision);
}

/**
 * The precision a backend computes in: what was asked for, else fp16 on `cuda` and fp32 elsewhere. fp16 or
 * bf16 on another backend is a UsageError (`autoNote` explains how `auto` got there).
 */
export function resolvePrecision(backend: BackendName, requested: Precision | undefined, autoNote = ''): Precision {
  if (backend === 'cuda') return requested ?? 'fp16';
  if (requested === undefined || requested === 'fp32') return 'fp32';
  throw new UsageError(
    `--precision ${requested} needs --backend cuda; the ${backend} backend${autoNote} computes in fp32 only (drop --precision, or use --precision fp32)`,
  );
}
