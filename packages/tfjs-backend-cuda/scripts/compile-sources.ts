// Compiles every CUDA source of the package for every storage type (and the attention head sizes) with
// NVRTC, no GPU needed: catches compile errors before device time is spent, and warms the kernel cache.
//   node compile-sources.mjs [--arch sm_90]      (libraries found as the backend finds them)
import { parseArgs } from 'node:util';
import { attentionMmaSource } from '../src/cuda/attention-mma.js';
import { attentionSimpleSource } from '../src/cuda/attention-simple.js';
import { castSource } from '../src/cuda/cast.js';
import { elementwiseSource } from '../src/cuda/elementwise.js';
import { embeddingSource } from '../src/cuda/embedding.js';
import { layerNormSource } from '../src/cuda/layer-norm.js';
import { prelude } from '../src/cuda/prelude.js';
import { rotarySource } from '../src/cuda/rotary.js';
import { segmentMeanSource } from '../src/cuda/segment-mean.js';
import { findCudaLibraries } from '../src/library-discovery.js';
import { Nvrtc } from '../src/nvrtc.js';
import { storageDefine, type StorageType } from '../src/precision.js';

const { values } = parseArgs({ options: { arch: { type: 'string', default: 'sm_90' } } });
const libs = findCudaLibraries();
const nvrtc = new Nvrtc(libs.nvrtc, libs.nvrtcBuiltins);
const storages: StorageType[] = ['f32', 'f16', 'bf16'];
let failures = 0;
const compile = (name: string, code: string, defines: string[]) => {
  const start = performance.now();
  try {
    const cubin = nvrtc.compile(prelude + code, `${name}.cu`, [`--gpu-architecture=${values.arch}`, '-std=c++17', `--include-path=${libs.includeDir}`, ...defines]);
    console.log(`ok   ${name} ${defines.join(' ')}: ${cubin.length} bytes, ${(performance.now() - start).toFixed(0)} ms`);
  } catch (error) {
    failures++;
    console.log(`FAIL ${name} ${defines.join(' ')}: ${(error as Error).message}`);
  }
};
for (const storage of storages) {
  for (const source of [castSource, elementwiseSource, layerNormSource, rotarySource, segmentMeanSource, embeddingSource]) {
    compile(source.name, source.code, [storageDefine(storage)]);
  }
  for (const hd of [16, 24, 32, 64, 128]) compile(attentionSimpleSource.name, attentionSimpleSource.code, [storageDefine(storage), `-DHD=${hd}`]);
  if (storage !== 'f32') {
    for (const hd of [16, 32, 64, 128]) {
      for (const position of [[], ['-DROTARY'], ['-DALIBI']]) compile(attentionMmaSource.name, attentionMmaSource.code, [storageDefine(storage), `-DHD=${hd}`, ...position]);
    }
  }
}
console.log(`NVRTC ${nvrtc.version}, ${values.arch}: ${failures} failed`);
process.exit(failures ? 1 : 0);
