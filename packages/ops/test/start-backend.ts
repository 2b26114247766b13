// Starts tfjs' cpu or wasm backend for these tests, the plain tfjs way: this package starts no backend
// (@virnucpro/compute does, and sits above it), so its tests do what any tfjs program does.
import * as tf from '@tensorflow/tfjs-core';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import '../src/index.js'; // registers the composite kernels (what importing @virnucpro/ops does)

export async function startBackend(name: 'cpu' | 'wasm'): Promise<string> {
  tf.env().set('PROD', true);
  if (name === 'cpu') {
    await import('@tensorflow/tfjs-backend-cpu');
  } else {
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false); // Node has no Blob-URL workers: the SIMD build, one thread
    // The installed package's dist/ holds its .wasm binaries (compute's resolveWasmDir also honours an override).
    wasm.setWasmPaths(`${dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'))}/`);
  }
  if (!(await tf.setBackend(name))) throw new Error(`tf.setBackend('${name}') failed`);
  await tf.ready();
  return tf.getBackend();
}
