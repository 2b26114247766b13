#!/usr/bin/env node
// Weights I/O benchmark. Build first: npx nx run @virnucpro/weights:build
// Usage: node tools/bench/weights/bench-weights.mjs [totalMiB=1024] [workDir=os.tmpdir()]
// Each measurement runs in a fresh child process so peak memory is its own.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const weights = join(here, '../../../packages/weights/dist/index.js');
const [, , mode, ...rest] = process.argv;

if (mode === '--child') {
  const [task, path] = rest;
  const w = await import(weights);
  const start = performance.now();
  let peak = 0;
  const sample = () => (peak = Math.max(peak, process.memoryUsage().rss));
  const timer = setInterval(sample, 5);
  let bytes = 0;
  // Retain everything read: peak RSS then shows what a caller holding the weights pays.
  if (task === 'safetensors') {
    const { tensors } = await w.readSafetensors(path);
    for (const t of tensors.values()) bytes += t.data.byteLength;
  } else if (task === 'naive-readFile') {
    // Baseline: the whole file in memory, then a copy per tensor (what "readFile + slice" costs).
    const file = await readFile(path);
    const n = Number(file.readBigUInt64LE(0));
    const header = JSON.parse(file.subarray(8, 8 + n).toString());
    const kept = []; // the caller keeps its tensors, so the copies stay alive
    for (const [name, info] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      const [a, b] = info.data_offsets;
      const copy = new Float32Array(file.buffer.slice(file.byteOffset + 8 + n + a, file.byteOffset + 8 + n + b));
      kept.push(copy);
      bytes += copy.byteLength;
    }
    sample();
    globalThis.kept = kept;
  } else if (task === 'torch') {
    const sd = await w.loadStateDict(path);
    for (const t of sd.values()) bytes += t.data.byteLength;
  } else if (task === 'tfjs') {
    const { tensors } = await w.readTfjsArtifact(path);
    for (const t of tensors.values()) bytes += t.data.byteLength;
  } else if (task === 'f16-widen') {
    const n = 64 * 1024 * 1024;
    const bits = new Uint16Array(n);
    for (let i = 0; i < n; i++) bits[i] = (i * 2654435761) & 0x7bff;
    const t0 = performance.now();
    w.toFloat32({ dtype: 'float16', shape: [n], data: bits });
    const ms = performance.now() - t0;
    clearInterval(timer);
    console.log(JSON.stringify({ task, elements: n, ms, melemPerS: n / 1e3 / ms }));
    process.exit(0);
  }
  sample();
  clearInterval(timer);
  const ms = performance.now() - start;
  console.log(JSON.stringify({ task, bytes, ms, mibPerS: bytes / 1048576 / (ms / 1000), peakRssMiB: peak / 1048576 }));
  process.exit(0);
}

const totalMiB = Number(mode ?? 1024);
const work = mkdtempSync(join(rest[0] ?? tmpdir(), 'bench-weights-'));
const w = await import(weights);
const child = (task, path) => {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--child', task, path ?? ''], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop());
};
try {
  const tensorMiB = 64;
  const count = Math.max(1, Math.round(totalMiB / tensorMiB));
  const tensors = new Map();
  for (let i = 0; i < count; i++) {
    const data = new Float32Array((tensorMiB * 1048576) / 4);
    for (let j = 0; j < data.length; j += 4096) data[j] = i + j;
    tensors.set(`layer.${i}.weight`, { dtype: 'float32', shape: [data.length / 1024, 1024], data });
  }
  const st = join(work, 'model.safetensors');
  let t0 = performance.now();
  await w.writeSafetensors(st, tensors, { format: 'pt' });
  const writeMs = performance.now() - t0;
  const fileMiB = statSync(st).size / 1048576;
  const tfjsDir = join(work, 'tfjs');
  t0 = performance.now();
  await w.writeTfjsArtifact(tfjsDir, tensors, {});
  const tfjsWriteMs = performance.now() - t0;
  tensors.clear();
  const pt = join(work, 'model.pt');
  execFileSync('python3', [join(here, 'make-torch-zip.py'), pt, String(count), String(tensorMiB)]);

  // Flush dirty pages, then warm every file once, so all reads below see the same (warm) page cache.
  execFileSync('sync');
  for (const p of [st, pt]) await readFile(p).then(() => undefined);
  const best = (task, path) => [child(task, path), child(task, path)].sort((a, b) => a.ms - b.ms)[0];
  const results = {
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, date: new Date().toISOString() },
    fileMiB,
    writeSafetensors: { ms: writeMs, mibPerS: fileMiB / (writeMs / 1000) },
    writeTfjsArtifact: { ms: tfjsWriteMs, mibPerS: fileMiB / (tfjsWriteMs / 1000) },
    readSafetensors: best('safetensors', st),
    naiveReadFile: best('naive-readFile', st),
    readTorchZip: best('torch', pt),
    readTfjsArtifact: best('tfjs', tfjsDir),
    float16Widen: best('f16-widen'),
  };
  console.log(JSON.stringify(results, null, 1));
} finally {
  rmSync(work, { recursive: true, force: true });
}
