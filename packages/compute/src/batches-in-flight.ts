/**
 * Batches a model should have in flight at once on `backend`: 2 on cuda, whose kernels queue on one stream — the next
 * batch's tokenisation, upload and launches then overlap the GPU's work on the one before, and each batch's results
 * are the same as alone (batch invariance); 1 elsewhere, where a batch computes on the calling threads and a second
 * one would only wait. What predict's GPU workers, `virnucpro embed` and the model benches all run with.
 */
export function batchesInFlight(backend: string): number {
  return backend === 'cuda' ? 2 : 1;
}
