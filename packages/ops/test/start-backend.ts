// Starts tfjs' cpu or wasm backend for these tests, the plain tfjs way: this package starts no backend
// (@virnucpro/compute does, and sits above it), so its tests do what any tfjs program does.
import * as tf from '@tensorflow/tfjs-core';
import { resolveWasmDir } from '../src/index.js';

export async function startBackend(name: 'cpu' | 'wasm'): Promise<string> {
  tf.env().set('PROD', true);
  if (name === 'cpu') {
    await import('@tensorflow/tfjs-backend-cpu');
  } else {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // Node has no Blob-URL workers: the SIMD build, one thread
    wasm.setWasmPaths(resolveWasmDir());
  }
  if (!(await tf.setBackend(name))) throw new Error(`tf.setBackend('${name}') failed`);
  await tf.ready();
  return tf.getBackend();
}
