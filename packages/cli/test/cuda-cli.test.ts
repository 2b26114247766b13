// `--backend cuda` and `--precision` as a user meets them, through the built CLI. CI has no GPU: there the
// cuda backend must refuse with one readable message (what was looked for, where) and a non-zero exit,
// never a stack trace or a silent fallback to another backend.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { probeCuda } from '@virnucpro/tfjs-backend-cuda';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'cuda-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const predict = (out: string, ...extra: string[]) =>
  runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--out-dir', out, '--quiet', ...extra]);
const embedEsm2 = (...extra: string[]) =>
  runCli(['embed', 'esm2', '--model', join(testData, 'demo-models', 'esm2-demo'), '--input', join(testData, 'lambda_virus.fa'), '--output', join(tmp, 'e.safetensors'), '--quiet', ...extra]);

/** One `virnucpro:` message, no stack frames. */
function expectOneMessage(stderr: string, pattern: RegExp): void {
  expect(stderr).toMatch(pattern);
  expect(stderr.match(/virnucpro:/g)).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe('--precision is checked against --backend before anything runs (exit 2)', () => {
  it.each([
    ['predict', 'cpu', 'fp16'],
    ['predict', 'wasm', 'bf16'],
    ['embed', 'cpu', 'bf16'],
    ['embed', 'tensorflow', 'fp16'],
  ])('%s --backend %s --precision %s', (command, backend, precision) => {
    const out = join(tmp, `p-${command}-${backend}`);
    const r = command === 'predict' ? predict(out, '--backend', backend, '--precision', precision) : embedEsm2('--backend', backend, '--precision', precision);
    expect(r.status).toBe(2);
    expectOneMessage(r.stderr, new RegExp(`--precision ${precision} needs --backend cuda; the ${backend} backend computes in fp32 only`));
    expect(existsSync(out)).toBe(false);
  });

  it('an unknown precision is a usage error', () => {
    const r = predict(join(tmp, 'int8'), '--backend', 'cuda', '--precision', 'int8');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/precision.*int8.*fp32, fp16, bf16, fp8|Invalid values/s);
  });
});

describe.skipIf(probeCuda().ok)('--backend cuda without a GPU or the CUDA libraries', () => {
  it('predict (in-process) says what was looked for and where, exits non-zero, leaves nothing behind', () => {
    const out = join(tmp, 'no-gpu');
    const r = predict(out, '--backend', 'cuda');
    expect(r.status).toBe(1);
    expectOneMessage(r.stderr, /^virnucpro: --backend cuda cannot run here: (CUDA libraries not found:|CUDA driver|the CUDA driver sees no GPU)/);
    expect(r.stderr).toMatch(/libcuda\.so\.1|VIRNUCPRO_CUDA_HOME/);
    expect(existsSync(out)).toBe(false);
  });

  it('predict with worker processes (--devices 0): the same reason from the parent, before any worker starts', () => {
    const out = join(tmp, 'no-gpu-devices');
    const r = predict(out, '--backend', 'cuda', '--devices', '0');
    expect(r.status).toBe(1);
    expectOneMessage(r.stderr, /^virnucpro: no CUDA device for --backend cuda: (CUDA libraries not found:|CUDA driver|the CUDA driver sees no GPU)/);
    expect(existsSync(out)).toBe(false);
  });

  it('embed esm2 --backend cuda --precision bf16: the same message', () => {
    const r = embedEsm2('--backend', 'cuda', '--precision', 'bf16');
    expect(r.status).toBe(1);
    expectOneMessage(r.stderr, /^virnucpro: --backend cuda cannot run here: /);
    expect(existsSync(join(tmp, 'e.safetensors'))).toBe(false);
  });
});
