// One `virnucpro predict` run on simulated devices (simulated-scorer.mjs: frames scored at once in K worker
// processes), through the command's own code (resolvePredictOptions → runPredict, the checkpoint, the writer,
// run_summary.json), measuring the main process: frames per second from FASTA to written outputs, its CPU time and
// its peak RSS. Bundled by bench-host-pipeline.mjs; prints one JSON line.
//   node host-pipeline.mjs READS.fa OUT_DIR WORKERS MODELS_DIR [CHUNK_LENGTH] [fp32|fp16: --save-embeddings in that dtype]
import { fileURLToPath } from 'node:url';
import { loadMlp } from '../../../packages/mlp/src/index.js';
import { resolvePredictOptions } from '../../../packages/cli/src/config/resolve-predict-options.js';
import { boundHeapGrowth } from '../../../packages/cli/src/pipeline/main-heap.js';
import { usesWorkerProcesses } from '../../../packages/cli/src/pipeline/feature-pool.js';
import { runPredict } from '../../../packages/cli/src/pipeline/run-predict.js';
import { resolveModelPaths } from '../../../packages/cli/src/pipeline/resolve-models.js';
import { createProgressReporter, type ProgressReporter } from '../../../packages/cli/src/progress/progress-reporter.js';

const [input, outDir, workers, modelsDir, chunkLength = '300', embeddingsDtype] = process.argv.slice(2);
const options = resolvePredictOptions({
  input, 'out-dir': outDir, 'models-dir': modelsDir, 'model-type': Number(chunkLength), backend: 'cpu', workers: Number(workers), force: true, quiet: true,
  ...(embeddingsDtype ? { 'save-embeddings': true, 'embeddings-dtype': embeddingsDtype } : {}),
});
// As the command does for its main process (main-heap.ts): V8's heap bounded at about twice its live data.
if (usesWorkerProcesses(options)) boundHeapGrowth();
// The simulated workers say they score features of the MLP's size (the main process checks it before any frame goes).
const { inputDim } = await loadMlp(resolveModelPaths(options).mlp);
const plugin = { module: fileURLToPath(new URL('./simulated-scorer.mjs', import.meta.url)), export: 'simulatedScorerFactory', options: { featureDim: inputDim, ...(embeddingsDtype ? { withFeatures: true } : {}) } };
const quiet = createProgressReporter({ quiet: true });
/** When the first scored frame came back (a fresh run computes while its input is still being counted). */
let firstFrameAt: number | undefined;
const reporter: ProgressReporter = {
  stage: (name, stageOptions) => {
    const stage = quiet.stage(name, stageOptions);
    return { ...stage, tick: (n, tokens) => ((firstFrameAt ??= performance.now()), stage.tick(n, tokens)) };
  },
  activity: (text) => quiet.activity(text),
  log: (message) => quiet.log(message),
  close: () => quiet.close(),
};
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const summary = await runPredict(options, { reporter, featuresPlugin: plugin });
const wall = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
reporter.close();
const embedClassify = summary.stageSeconds['embed+classify'] ?? wall;
console.log(JSON.stringify({
  frames: summary.frames,
  workers: Number(workers),
  ...(embeddingsDtype ? { saveEmbeddings: embeddingsDtype } : {}),
  wallSeconds: +wall.toFixed(2),
  firstFrameSeconds: firstFrameAt === undefined ? null : +((firstFrameAt - t0) / 1000).toFixed(2),
  stageSeconds: summary.stageSeconds,
  framesPerSecond: Math.round(summary.frames / embedClassify),
  wallFramesPerSecond: Math.round(summary.frames / wall),
  mainCpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(2),
  mainCores: +((cpu.user + cpu.system) / 1e6 / wall).toFixed(2),
  maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024),
}));
