// `--backend auto` for worker processes is decided without a tfjs backend in the parent: the answer is the one
// initBackend('auto') gives in a fresh process (where no CUDA GPU is usable; with one, it is cuda).
import { spawnSync } from 'node:child_process';
import * as tf from '@tensorflow/tfjs-core';
import { probeCuda } from '@virnucpro/tfjs-backend-cuda';
import { describe, expect, it } from 'vitest';
import { resolveAutoBackend } from '../src/index.js';

describe('resolveAutoBackend', () => {
  it('picks what initBackend("auto") picks in a fresh process, starting no backend here', async () => {
    const registered = tf.engine().registryFactory;
    const backendsBefore = Object.keys(registered).filter((name) => tf.engine().registry[name] !== undefined);
    const picked = await resolveAutoBackend();
    const fresh = spawnSync(process.execPath, ['--input-type=module', '-e', "const { initBackend } = await import('@virnucpro/ops'); process.stdout.write(await initBackend('auto'));"], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
    });
    expect(picked).toBe(probeCuda().ok ? 'cuda' : fresh.stdout);
    // No backend was created in this process by the call.
    expect(Object.keys(registered).filter((name) => tf.engine().registry[name] !== undefined)).toEqual(backendsBefore);
  }, 120_000);
});
