// GPU machine smoke test: Dawn adapter facts and tfjs-webgpu fp32 matmul throughput/correctness.
import { create, globals } from 'webgpu';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';

Object.assign(globalThis, globals);
const gpu = create([]);
globalThis.navigator = { gpu };
const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
const info = adapter.info ?? {};
const result = {
  adapter: { vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description },
  features: [...adapter.features],
  limits: Object.fromEntries(['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupStorageSize',
    'maxComputeInvocationsPerWorkgroup', 'maxComputeWorkgroupSizeX'].map((k) => [k, adapter.limits[k]])),
};
await import('@tensorflow/tfjs-backend-webgpu');
await tf.setBackend('webgpu');
await tf.ready();
result.backend = tf.getBackend();
// correctness against cpu on a small matmul
const a = tf.randomNormal([64, 96], 0, 1, 'float32', 1);
const b = tf.randomNormal([96, 80], 0, 1, 'float32', 2);
const g = await tf.matMul(a, b).data();
await tf.setBackend('cpu');
const a2 = tf.tensor(await a.data(), [64, 96]); const b2 = tf.tensor(await b.data(), [96, 80]);
const c = await tf.matMul(a2, b2).data();
let maxDiff = 0; for (let i = 0; i < c.length; i++) maxDiff = Math.max(maxDiff, Math.abs(c[i] - g[i]));
result.matmulMaxAbsDiffVsCpu = maxDiff;
await tf.setBackend('webgpu');
for (const n of [2048, 4096, 8192]) {
  const x = tf.randomNormal([n, n]); const y = tf.randomNormal([n, n]);
  await tf.matMul(x, y).data();
  const reps = 5; const t0 = performance.now();
  let z; for (let i = 0; i < reps; i++) { z?.dispose(); z = tf.matMul(x, y); }
  await z.data();
  const s = (performance.now() - t0) / 1000;
  result[`matmul${n}TFLOPs`] = +(2 * n ** 3 * reps / s / 1e12).toFixed(2);
  x.dispose(); y.dispose(); z.dispose();
}
console.log(JSON.stringify(result, null, 1));
process.exit(0);
