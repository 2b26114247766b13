import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { createProgressReporter, formatDuration } from '../src/progress/progress-reporter.js';
import { RunSummaryBuilder } from '../src/progress/run-summary.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (d) => (text += d));
  return { stream, text: () => text };
}

describe('progress reporter', () => {
  it('prints periodic plain lines with rate and ETA when not a TTY', () => {
    let t = 0;
    const out = capture();
    const r = createProgressReporter({ stream: out.stream, intervalSeconds: 10, now: () => t });
    const s = r.stage('embed', { total: 100, unit: 'frames' });
    t = 5000;
    s.tick(10, 1000); // before the interval: silent
    expect(out.text()).toBe('');
    t = 10_000;
    s.tick(10, 1000);
    expect(out.text()).toBe('embed: 20/100 frames, 20.0%, 2.0 frames/s, 200 tokens/s, ETA 40s, elapsed 10s\n');
    s.finish();
    expect(out.text()).toMatch(/\(done\)\n$/);
  });
  it('on a terminal: a bar from the start, and a line logged after the last stage ends is written at once', async () => {
    const out = capture();
    Object.assign(out.stream, { isTTY: true, columns: 120 });
    const r = createProgressReporter({ stream: out.stream as unknown as NodeJS.WriteStream });
    const s = r.stage('predict', { total: 45, unit: 'frames' });
    // Drawn (at the first redraw, within a second) before any frame is done.
    for (const start = Date.now(); !out.text().includes('0/45 frames') && Date.now() - start < 1000; ) await new Promise((r) => setTimeout(r, 20));
    expect(out.text()).toContain('0/45 frames');
    s.tick(45, 100);
    s.finish();
    // The summary line comes after the bars (the CLI's `done: …`); it used to wait for a redraw that never came.
    r.log('done: 45 frames');
    expect(out.text()).toMatch(/45\/45 frames[^\n]*\n(.*\n)*done: 45 frames\n$/);
    r.close();
    expect(out.text()).toMatch(/done: 45 frames\n$/);
  });
  it('says what happens before anything can be counted: a timed line on a terminal, nothing in plain lines', async () => {
    const tty = capture();
    Object.assign(tty.stream, { isTTY: true, columns: 120 });
    const bars = createProgressReporter({ stream: tty.stream as unknown as NodeJS.WriteStream });
    const loading = bars.activity('loading the models');
    for (const start = Date.now(); !tty.text().includes('loading the models… 0s') && Date.now() - start < 1000; ) await new Promise((r) => setTimeout(r, 20));
    expect(tty.text()).toContain('loading the models… 0s');
    loading.end();
    bars.log('done');
    expect(tty.text()).toMatch(/done\n$/);
    const plain = capture();
    const lines = createProgressReporter({ stream: plain.stream, intervalSeconds: 0 });
    lines.activity('loading the models').end();
    expect(plain.text()).toBe('');
  });
  it('prints nothing when quiet', () => {
    const out = capture();
    const r = createProgressReporter({ stream: out.stream, quiet: true });
    const s = r.stage('x', { total: 1 });
    s.tick(1);
    s.finish();
    r.log('hello');
    expect(out.text()).toBe('');
  });
  it('formats durations', () => {
    expect(formatDuration(59.4)).toBe('59s');
    expect(formatDuration(61)).toBe('1m01s');
    expect(formatDuration(3 * 3600 + 120)).toBe('3h02m');
  });
});

describe('run summary', () => {
  it('computes rates, stage times and packing efficiency', async () => {
    let t = 1_000_000;
    const b = new RunSummaryBuilder(
      { input: 'a.fa', chunkLength: 500, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'cpu', devices: [], workers: 0, tokenBudget: 100 },
      () => t,
    );
    b.startStage('embed');
    t += 2000;
    b.endStage('embed');
    b.sequences = 4;
    b.frames = 8;
    b.esmTokens = 150;
    b.addBatch(100);
    b.addBatch(50);
    t += 2000;
    const s = b.build('complete');
    expect(s.stageSeconds.embed).toBe(2);
    expect(s.totalSeconds).toBe(4);
    expect(s.sequencesPerSecond).toBe(1);
    expect(s.tokensPerSecond.esm).toBe(37.5);
    expect(s.batches).toBe(2);
    expect(s.packingEfficiency).toBe(0.75);
    expect(s.status).toBe('complete');
    expect(s.precision).toBe('fp32');
    expect(s.oomSplits).toBe(0);
    expect(s.cuda).toBeUndefined();
    expect('peakGpuBytes' in s).toBe(false); // a backend that reports no GPU memory: no field
    expect('gpuBusyFraction' in s).toBe(false); // nor a utilisation
  });

  it('reports the mean of the GPU utilisation samples as a fraction', () => {
    const b = new RunSummaryBuilder({ input: 'a.fa', chunkLength: 300, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'cuda', devices: [], workers: 0, tokenBudget: 100 });
    b.gpuBusySamples = 4;
    b.gpuBusyPercentSum = 100 + 100 + 90 + 82;
    expect(b.build('complete').gpuBusyFraction).toBe(0.93);
  });

  it("reports this process's peak resident memory", () => {
    const fixed = { input: 'a.fa', chunkLength: 500, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'cpu', devices: [], workers: 0, tokenBudget: 100 };
    expect(new RunSummaryBuilder(fixed, Date.now, () => 123_456_789).build('complete').peakRssBytes).toBe(123_456_789);
    // The default reads the OS's high-water mark: at least what this test process holds now.
    expect(new RunSummaryBuilder(fixed).build('complete').peakRssBytes).toBeGreaterThanOrEqual(process.memoryUsage().rss * 0.5);
  });

  it('records the backend actually used, its precision, the GPU and library versions, and OOM splits', () => {
    const b = new RunSummaryBuilder({ input: 'a.fa', chunkLength: 500, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'auto', devices: ['0'], workers: 0, tokenBudget: 100 });
    const cuda = { gpu: 'NVIDIA H100 80GB HBM3', arch: 'sm_90', driverCudaVersion: '13.0', nvrtcVersion: '13.0', cublasLtVersion: 130100 };
    b.setCompute({ backend: 'cuda', precision: 'bf16', cuda });
    b.oomSplits = 3;
    b.peakGpuBytes = 8_680_789_504;
    const s = b.build('complete');
    expect(s).toMatchObject({ backend: 'cuda', precision: 'bf16', cuda, oomSplits: 3, peakGpuBytes: 8_680_789_504 });
    expect(JSON.parse(JSON.stringify(s)).cuda).toEqual(cuda);
  });

  it('reports fp8 refinement (margin, precision, frames the workers refined) only when the run refines', () => {
    const fixed = { input: 'a.fa', chunkLength: 500, models: { esm: 'e', dnabert: 'd', mlp: 'm' }, backend: 'cuda', devices: [], workers: 0, tokenBudget: 100 };
    const telemetry = { compute: { backend: 'cuda', precision: 'fp8' }, oomSplits: 0, fp32Recomputes: 0, refinedFrames: 369, esmTokens: 0, dnabertTokens: 0, peakGpuBytes: 0, gpuBusySamples: 0, gpuBusyPercentSum: 0, workers: [] } as const;
    const refining = new RunSummaryBuilder(fixed);
    refining.setRefinement(0.04, 'bf16');
    expect(refining.build('complete').refinement).toEqual({ margin: 0.04, precision: 'bf16', frames: 0 });
    refining.setFeatures({ ...telemetry, workers: [] }, false);
    expect(refining.build('complete').refinement).toEqual({ margin: 0.04, precision: 'bf16', frames: 369 });
    const plain = new RunSummaryBuilder(fixed);
    plain.setFeatures({ ...telemetry, workers: [] }, false);
    expect(plain.build('complete')).not.toHaveProperty('refinement');
  });
});
