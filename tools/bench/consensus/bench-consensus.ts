// Throughput of the classify step's parts: numpy-style float32 printing, the MLP forward, the streaming
// writer. Bundle with tools/bench/consensus/bundle.sh, then
//   node /tmp/consensus-bench/bench-consensus.mjs [--rows 20000] [--frames 1000000] [--threads 2,4,8] [--tfjs wasm|cpu|tensorflow]
// Prints one JSON object per measurement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatFloat32, PredictionWriter } from '@virnucpro/consensus';
import { MlpClassifier, ThreadedMlp } from '@virnucpro/mlp';
import type { TensorData } from '@virnucpro/weights';

const args = process.argv.slice(2);
const arg = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const mlpRows = Number(arg('rows', '20000'));
const frames = Number(arg('frames', '1000000'));
const tfjsBackend = arg('tfjs', '');

let seed = 42;
const rand = () => ((seed = (seed * 48271) % 2147483647) / 2147483647);
const report = (o: Record<string, unknown>) => console.log(JSON.stringify(o));

// 1. formatFloat32 vs baselines
{
  const values = new Float32Array(2_000_000);
  for (let i = 0; i < values.length; i++) values[i] = rand();
  const time = (name: string, f: (x: number) => string) => {
    let chars = 0;
    const t0 = performance.now();
    for (let i = 0; i < values.length; i++) chars += f(values[i]).length;
    const ns = ((performance.now() - t0) * 1e6) / values.length;
    report({ bench: 'format', name, nsPerValue: Math.round(ns), chars });
  };
  time('formatFloat32 (numpy str, exact)', (x) => formatFloat32(x));
  time('String(double) (JS shortest double, wrong digits for float32)', (x) => String(x));
  time('toPrecision loop + fround round-trip check (naive shortest float32, not exact)', (x) => {
    for (let p = 1; p < 9; p++) {
      const s = x.toPrecision(p);
      if (Math.fround(Number(s)) === x) return s;
    }
    return x.toPrecision(9);
  });
}

// 2. MLP forward, 3328 → 512 → 2
const inDim = 3328;
const hidden = 512;
const tensor = (shape: number[], scale = 0.02): TensorData => {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = (rand() - 0.5) * scale;
  return { dtype: 'float32', shape, data };
};
const sd = new Map<string, TensorData>([
  ['hidden_layer.weight', tensor([hidden, inDim])],
  ['hidden_layer.bias', tensor([hidden])],
  ['bn1.weight', tensor([hidden], 2)],
  ['bn1.bias', tensor([hidden])],
  ['bn1.running_mean', tensor([hidden])],
  ['bn1.running_var', { dtype: 'float32', shape: [hidden], data: new Float32Array(hidden).fill(1) }],
  ['output_layer.weight', tensor([2, hidden])],
  ['output_layer.bias', tensor([2])],
]);
const mlp = MlpClassifier.fromStateDict(sd);
const features = tensor([mlpRows, inDim], 1).data as Float32Array;
{
  const t0 = performance.now();
  for (let r = 0; r < mlpRows; r += 256) mlp.predict(features.subarray(r * inDim, Math.min(mlpRows, r + 256) * inDim));
  const s = (performance.now() - t0) / 1000;
  report({ bench: 'mlp', name: 'MlpClassifier.predict (WebAssembly SIMD hidden layer)', rows: mlpRows, rowsPerSecond: Math.round(mlpRows / s), usPerRow: Math.round((s * 1e6) / mlpRows) });
}
for (const threads of (arg('threads', '2,4,8') || '').split(',').filter(Boolean).map(Number)) {
  // The same rows on worker threads (what predict uses), 256-row calls as predict makes them, two in flight.
  const pool = ThreadedMlp.start(mlp, { threads });
  const t0 = performance.now();
  let previous: Promise<unknown> = Promise.resolve();
  for (let r = 0; r < mlpRows; r += 256) {
    const current = pool.predict(features.subarray(r * inDim, Math.min(mlpRows, r + 256) * inDim));
    await previous;
    previous = current;
  }
  await previous;
  const s = (performance.now() - t0) / 1000;
  await pool.close();
  report({ bench: 'mlp', name: `ThreadedMlp.predict (${threads} threads, 256-row calls)`, rows: mlpRows, rowsPerSecond: Math.round(mlpRows / s), usPerRow: Math.round((s * 1e6) / mlpRows) });
}
{
  // Naive one-row-at-a-time loop, same maths: what the blocking buys.
  const w1 = sd.get('hidden_layer.weight')!.data as Float32Array;
  const n = Math.min(mlpRows, 2000);
  const h = new Float64Array(hidden);
  const t0 = performance.now();
  for (let r = 0; r < n; r++) {
    const o = r * inDim;
    for (let j = 0; j < hidden; j++) {
      let a = 0;
      const wo = j * inDim;
      for (let k = 0; k < inDim; k++) a += features[o + k] * w1[wo + k];
      h[j] = a;
    }
  }
  const s = (performance.now() - t0) / 1000;
  report({ bench: 'mlp', name: 'naive single-row first layer (JS)', rows: n, rowsPerSecond: Math.round(n / s), usPerRow: Math.round((s * 1e6) / n) });
}
if (tfjsBackend) {
  const { linear } = await import('@virnucpro/ops');
  const { startCompute } = await import('@virnucpro/compute');
  const tf = await import('@tensorflow/tfjs-core');
  const { backend } = await startCompute({ backend: tfjsBackend as 'wasm' });
  const w1 = sd.get('hidden_layer.weight')!.data as Float32Array;
  const wT = tf.tidy(() => tf.transpose(tf.tensor2d(w1, [hidden, inDim])) as import('@tensorflow/tfjs-core').Tensor2D);
  const batch = 256;
  const t0 = performance.now();
  for (let r = 0; r < mlpRows; r += batch) {
    const rows = Math.min(batch, mlpRows - r);
    const y = tf.tidy(() => linear(tf.tensor2d(features.subarray(r * inDim, (r + rows) * inDim), [rows, inDim]), wT));
    await y.data();
    y.dispose();
  }
  const s = (performance.now() - t0) / 1000;
  report({ bench: 'mlp', name: `tfjs ${backend} first layer (matMul, batch 256)`, rows: mlpRows, rowsPerSecond: Math.round(mlpRows / s), usPerRow: Math.round((s * 1e6) / mlpRows) });
}

// 3. PredictionWriter: frames in batches of 256, 3 frames per chunk, 30 chunks per sequence
{
  const dir = mkdtempSync(join(tmpdir(), 'bench-consensus-'));
  try {
    const rss0 = process.memoryUsage().rss;
    const t0 = performance.now();
    const writer = await PredictionWriter.create(dir);
    const ids: string[] = [];
    const probs = new Float32Array(512);
    for (let i = 0; i < frames; i++) {
      const chunk = Math.floor(i / 3);
      ids.push(`seq${Math.floor(chunk / 30)}_chunk_${(chunk % 30) + 1}F${(i % 3) + 1}`);
      const p = rand();
      probs[2 * (ids.length - 1)] = 1 - p;
      probs[2 * (ids.length - 1) + 1] = p;
      if (ids.length === 256 || i === frames - 1) {
        await writer.writeBatch(ids, probs.subarray(0, ids.length * 2));
        ids.length = 0;
      }
    }
    const files = await writer.commit();
    const s = (performance.now() - t0) / 1000;
    report({
      bench: 'writer',
      frames,
      chunks: files.chunks,
      framesPerSecond: Math.round(frames / s),
      seconds: Number(s.toFixed(2)),
      rssGrowthMB: Math.round((process.memoryUsage().rss - rss0) / 2 ** 20),
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
