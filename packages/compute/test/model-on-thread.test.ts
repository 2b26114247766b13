import { describe, expect, it } from 'vitest';
import { modelRunsOnThread } from '../src/index.js';

describe('modelRunsOnThread', () => {
  it('puts the model on a thread on cuda and the CPU backends, keeps it on the main thread for tfjs-node and Dawn', () => {
    expect(['cuda', 'onednn', 'wasm', 'cpu'].filter(modelRunsOnThread)).toEqual(['cuda', 'onednn', 'wasm', 'cpu']);
    expect(['tensorflow', 'webgpu', 'auto', 'toString', ''].filter(modelRunsOnThread)).toEqual([]);
  });
});
