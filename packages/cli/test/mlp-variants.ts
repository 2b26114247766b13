// MLPs for tests of the per-record outputs, made from the demo MLP (test-data/demo-models, 64-d features):
// one that scores every frame as virus, and one whose virus logit is shifted so its calls on phage lambda are a
// mix of virus and others (the demo 500 MLP calls every chunk of lambda `others`, the 300 one nearly all `virus`).
import { join } from 'node:path';
import { readSafetensors, writeSafetensors, type TensorData } from '@virnucpro/weights';
import { testData } from './cli-harness.js';

const DEMO_MLP = (length: 300 | 500) => join(testData, 'demo-models', `mlp-demo-${length}.safetensors`);

/** `virusLogitShift` is added to the virus class's output bias; `allVirus` zeroes the output weights and makes virus win. */
export async function writeMlpVariant(path: string, options: { length?: 300 | 500; virusLogitShift?: number; allVirus?: boolean }): Promise<string> {
  const { tensors } = await readSafetensors(DEMO_MLP(options.length ?? 500));
  const copy = new Map<string, TensorData>();
  for (const [name, t] of tensors) copy.set(name, { dtype: t.dtype, shape: [...t.shape], data: Float32Array.from(t.data as Float32Array) });
  const bias = copy.get('output_layer.bias')!.data as Float32Array;
  if (options.allVirus) {
    (copy.get('output_layer.weight')!.data as Float32Array).fill(0);
    bias.set([0, 10]);
  }
  bias[1] += options.virusLogitShift ?? 0;
  await writeSafetensors(path, copy, { format: 'pt' });
  return path;
}
