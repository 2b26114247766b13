// `--devices` as a user types it, through the built CLI: every malformed list is refused with one line and exit 2
// before any GPU is looked for (so the same on a machine with or without GPUs), leaving no output folder. Which
// GPUs exist is the runtime's check against the driver (packages/runtime/test/devices.test.ts, mocked counts).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-devices-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('predict --devices: refusals (exit 2, nothing written)', () => {
  it.each([
    ['cuda', '0,0', /^virnucpro: --devices: GPU 0 is listed twice \(one worker per GPU; --workers N runs N on each\)\n$/],
    ['cuda', '1,2,1', /^virnucpro: --devices: GPU 1 is listed twice/],
    ['cuda', 'a', /^virnucpro: --devices: 'a' is not a device number\n$/],
    ['cuda', '0,gpu1', /^virnucpro: --devices: 'gpu1' is not a device number\n$/],
    ['cuda', '1.5', /^virnucpro: --devices: '1.5' is not a device number\n$/],
    ['cuda', '0,,1', /^virnucpro: --devices: expected a list without empty entries, got "0,,1"\n$/],
    ['cpu', '0', /^virnucpro: --devices selects GPUs; backend 'cpu' runs on the CPU \(use --workers N for N worker processes\)\n$/],
    ['wasm', '0,1', /^virnucpro: --devices selects GPUs; backend 'wasm' runs on the CPU/],
  ])('--backend %s --devices %s', (backend, devices, message) => {
    const out = join(tmp, `${backend}-${devices}`);
    const r = runCli(['predict', join(testData, 'lambda_virus.fa'), '--models-dir', join(testData, 'demo-models'), '--out-dir', out, '--quiet', '--backend', backend, '--devices', devices]);
    expect(r.stderr).toMatch(message);
    expect(r.status).toBe(2);
    expect(existsSync(out)).toBe(false);
  });
});
