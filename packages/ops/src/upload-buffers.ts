import * as tf from '@tensorflow/tfjs-core';

/** A backend that hands out host memory to read data into just before it is uploaded (`cuda`: page-locked). */
interface UploadBufferBackend {
  uploadBuffer(bytes: number): Uint8Array;
  releaseUploadBuffer(view: ArrayBufferView): void;
  closeUploadBuffers(): void;
}

/** Host memory for data that is read and then made into tensors at once (a checkpoint's weights, layer by layer). */
export interface UploadBuffers {
  /**
   * A buffer of `bytes` to read into (a view, perhaps at an offset of a larger ArrayBuffer, aligned for every element
   * type); tensors made from views of it upload from it.
   */
  allocate(bytes: number): Uint8Array;
  /**
   * Once the tensors made from a buffer exist: `view` is the buffer or any view from its first byte. The buffer may be
   * handed out again, so nothing may read it after.
   */
  release(view: ArrayBufferView): void;
  /** No more buffers will be asked for (the load is over, or failed): the backend may free what came back. */
  close(): void;
}

const PLAIN: UploadBuffers = { allocate: (bytes) => new Uint8Array(bytes), release: () => {}, close: () => {} };

/**
 * The active backend's buffers for data about to be uploaded: on `cuda` page-locked memory, so that a tensor made
 * from it is a DMA queued on the GPU's stream instead of a copy on this thread; elsewhere plain ArrayBuffers. The
 * tensors' values are the same either way.
 */
export function uploadBuffers(): UploadBuffers {
  const backend = tf.backend() as Partial<UploadBufferBackend>;
  if (typeof backend.uploadBuffer !== 'function' || typeof backend.releaseUploadBuffer !== 'function' || typeof backend.closeUploadBuffers !== 'function') return PLAIN;
  const offering = backend as UploadBufferBackend;
  return {
    allocate: (bytes) => offering.uploadBuffer(bytes),
    release: (view) => offering.releaseUploadBuffer(view),
    close: () => offering.closeUploadBuffers(),
  };
}
