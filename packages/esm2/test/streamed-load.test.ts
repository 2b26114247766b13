import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs-core';
import { startCompute } from '@virnucpro/compute';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEsm2Weights, disposeEsm2Weights, uploadEsm2Weights, type Esm2TensorReader, type Esm2Weights } from '../src/esm2-weights.js';
import { loadEsm2Checkpoint, openEsm2Checkpoint } from '../src/load-checkpoint.js';
import { fixtureDir } from './fixture.js';

/** Every weight's values, by its place in the layout (layers.i.name / name). */
function valuesOf(weights: Esm2Weights): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const add = (name: string, value: unknown) => out.set(name, value instanceof tf.Tensor ? [...value.dataSync()] : [...(value as Float32Array)]);
  add('embedTokens', weights.embedTokens);
  add('finalNormGamma', weights.finalNormGamma);
  add('finalNormBeta', weights.finalNormBeta);
  weights.layers.forEach((layer, i) => Object.entries(layer).forEach(([name, value]) => add(`layers.${i}.${name}`, value)));
  return out;
}

// The upload that reads a checkpoint as it goes (what a GPU worker does with the released safetensors) must make
// exactly the weights of the whole-file read, and fail as cleanly.
describe('ESM-2 weights read as they are uploaded', () => {
  let whole: Map<string, number[]>;
  let tmp: string;
  beforeAll(async () => {
    await startCompute({ backend: 'cpu' });
    const checkpoint = await loadEsm2Checkpoint(fixtureDir);
    const weights = createEsm2Weights(checkpoint.config, checkpoint.tensors);
    whole = valuesOf(weights);
    disposeEsm2Weights(weights);
    tmp = mkdtempSync(join(tmpdir(), 'esm2-streamed-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  for (const [what, path] of [
    ['the Hugging Face folder (model.safetensors, read tensor by tensor)', ''],
    ['pytorch_model.bin (read whole, handed out from memory)', 'pytorch_model.bin'],
  ] as const) {
    for (const ahead of [0, 1, 5]) {
      it(`${what}, ${ahead} layer(s) read ahead: the same weights, bit for bit, and no tensor left behind`, async () => {
        const before = tf.memory().numTensors;
        const checkpoint = await openEsm2Checkpoint(join(fixtureDir, path));
        const weights = await uploadEsm2Weights(checkpoint.config, checkpoint, ahead);
        await checkpoint.close();
        expect(valuesOf(weights)).toEqual(whole);
        disposeEsm2Weights(weights);
        expect(tf.memory().numTensors).toBe(before);
      });
    }
  }

  it('asks for the next layers before the first one is read, so that reads and uploads overlap', async () => {
    const checkpoint = await openEsm2Checkpoint(fixtureDir);
    const events: string[] = [];
    const reader: Esm2TensorReader = {
      has: (name) => checkpoint.has(name),
      read: (names) => {
        const layer = /^layers\.(\d+)\./.exec(names[0])?.[1] ?? names[0];
        events.push(`read ${layer}`);
        return checkpoint.read(names).then((tensors) => {
          events.push(`got ${layer}`);
          return tensors;
        });
      },
    };
    const weights = await uploadEsm2Weights(checkpoint.config, reader, 1);
    await checkpoint.close();
    disposeEsm2Weights(weights);
    expect(checkpoint.config.numLayers).toBe(2);
    expect(events.indexOf('read 1')).toBeLessThan(events.indexOf('got 0'));
  });

  it("reads each layer into the backend's upload buffers and gives every one back once the layer's tensors exist", async () => {
    // The cpu backend, lent the upload-buffer methods a GPU backend has (@virnucpro/ops uploadBuffers).
    const backend = tf.backend() as unknown as Record<string, unknown>;
    // Each buffer a view at an offset of a larger block, as the cuda backend cuts them; known by that block.
    const allocated = new Set<ArrayBuffer>();
    const released: ArrayBuffer[] = [];
    const tensorsAtRelease: number[] = [];
    backend.uploadBuffer = (bytes: number) => {
      const view = new Uint8Array(bytes + 512).subarray(256, 256 + bytes);
      allocated.add(view.buffer);
      return view;
    };
    backend.releaseUploadBuffer = (view: ArrayBufferView) => {
      expect(view.byteOffset).toBe(256); // given back from the buffer's first byte
      released.push(view.buffer as ArrayBuffer);
      tensorsAtRelease.push(tf.memory().numTensors);
    };
    let closedAfter = -1;
    backend.closeUploadBuffers = () => (closedAfter = released.length);
    try {
      const before = tf.memory().numTensors;
      const checkpoint = await openEsm2Checkpoint(fixtureDir);
      const weights = await uploadEsm2Weights(checkpoint.config, checkpoint, 1);
      await checkpoint.close();
      expect(valuesOf(weights)).toEqual(whole);
      // Every layer tensor came from an upload buffer, and each buffer went back once, after its layer was made.
      expect(allocated.size).toBeGreaterThanOrEqual(16 * checkpoint.config.numLayers);
      expect(new Set(released)).toEqual(allocated);
      expect(released.length).toBe(allocated.size);
      expect(closedAfter).toBe(released.length); // closed once, after the last layer's buffers came back
      const perLayer = allocated.size / checkpoint.config.numLayers;
      for (let layer = 0; layer < checkpoint.config.numLayers; layer++) {
        expect(tensorsAtRelease[layer * perLayer]).toBeGreaterThanOrEqual(before + (layer + 1) * 12); // its 12 tensors made
      }
      disposeEsm2Weights(weights);
    } finally {
      delete backend.uploadBuffer;
      delete backend.releaseUploadBuffer;
      delete backend.closeUploadBuffers;
    }
  });

  it('a file cut short is refused when it is opened, naming it (its header points past its end)', async () => {
    const file = join(tmp, 'model.safetensors');
    const bytes = readFileSync(join(fixtureDir, 'model.safetensors'));
    writeFileSync(file, bytes.subarray(0, bytes.length - 64));
    copyFileSync(join(fixtureDir, 'config.json'), join(tmp, 'config.json'));
    await expect(openEsm2Checkpoint(tmp)).rejects.toThrow(/model\.safetensors: tensor ".*file truncated/);
  });

  it('a read that fails mid-upload fails the upload with its error and frees the layers already uploaded', async () => {
    const checkpoint = await openEsm2Checkpoint(fixtureDir);
    const before = tf.memory().numTensors;
    const reader: Esm2TensorReader = {
      has: (name) => checkpoint.has(name),
      read: (names) => (names[0].startsWith('layers.1.') ? Promise.reject(new Error('disk gone')) : checkpoint.read(names)),
    };
    await expect(uploadEsm2Weights(checkpoint.config, reader)).rejects.toThrow('disk gone');
    await checkpoint.close();
    expect(tf.memory().numTensors).toBe(before);
  });

  it('a header without a tensor the model needs is refused before any tensor is read, as the whole read refuses it', async () => {
    const file = join(tmp, 'missing', 'model.safetensors');
    const source = readFileSync(join(fixtureDir, 'model.safetensors'));
    const headerLength = Number(source.readBigUInt64LE(0));
    const header = JSON.parse(source.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, unknown>;
    const dropped = Object.keys(header).find((name) => name.endsWith('layer.1.intermediate.dense.weight'))!;
    expect(dropped).toBeDefined();
    delete header[dropped];
    const json = Buffer.from(JSON.stringify(header));
    const length = Buffer.alloc(8);
    length.writeBigUInt64LE(BigInt(json.length));
    mkdirSync(join(tmp, 'missing'), { recursive: true });
    writeFileSync(file, Buffer.concat([length, json, source.subarray(8 + headerLength)]));
    copyFileSync(join(fixtureDir, 'config.json'), join(tmp, 'missing', 'config.json'));
    const wholeError = await loadEsm2Checkpoint(join(tmp, 'missing')).then(() => undefined, (err: Error) => err.message);
    expect(wholeError).toMatch(/is missing/);
    await expect(openEsm2Checkpoint(join(tmp, 'missing'))).rejects.toThrow(wholeError!);
  });
});
