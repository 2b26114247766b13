import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ConvertedModel } from '@virnucpro/ops';
import { writeTfjsArtifact, type TensorData } from '@virnucpro/weights';
import { BpeTokenizer } from './bpe-tokenizer.js';
import { readDnabertConfig, toHfConfigJson } from './dnabert-config.js';
import { canonicalDnabertNames, dnabertWeightsFromStateDict, expectedDnabertTensors } from './dnabert-weights.js';
import { readDnabertStateDict } from './load-dnabert.js';

/**
 * Converts a DNABERT-S / DNABERT-2 model directory (safetensors or pytorch_model.bin, with or
 * without the `bert.` prefix) into a tfjs weights artifact directory that `loadDnabert` reads:
 * `model.json` + shards holding exactly the encoder tensors under canonical names (pooler and
 * MLM head dropped), plus `config.json` and the unchanged `tokenizer.json`. One atomic folder write
 * (writeTfjsArtifact), so a failure leaves nothing at `dest`.
 */
export async function convertDnabert(src: string, dest: string): Promise<ConvertedModel> {
  if (existsSync(dest)) throw new Error(`${dest}: already exists; choose a new output directory`);
  if (!existsSync(join(src, 'tokenizer.json'))) throw new Error(`${src}: missing tokenizer.json`);
  const config = await readDnabertConfig(join(src, 'config.json'));
  await BpeTokenizer.fromFile(join(src, 'tokenizer.json')); // fail now on an unsupported tokenizer
  const { tensors, path } = await readDnabertStateDict(src);
  dnabertWeightsFromStateDict(tensors, config, path); // names and shapes checked before writing
  const canonical = canonicalDnabertNames(tensors);
  const kept = new Map<string, TensorData>();
  let parameters = 0;
  for (const name of expectedDnabertTensors(config).keys()) {
    const t = canonical.get(name)!;
    kept.set(name, t);
    parameters += t.data.length;
  }
  await writeTfjsArtifact(dest, kept, { format: 'virnucpro-dnabert', source: path, config: toHfConfigJson(config) }, {
    files: {
      'config.json': `${JSON.stringify(toHfConfigJson(config), null, 2)}\n`,
      'tokenizer.json': await readFile(join(src, 'tokenizer.json')),
    },
  });
  return { dest, tensors: kept.size, parameters, source: path };
}
