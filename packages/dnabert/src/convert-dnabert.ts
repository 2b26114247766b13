import { existsSync } from 'node:fs';
import { copyFile, open, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { tempPathFor } from '@virnucpro/atomic-file';
import type { ConvertedModel } from '@virnucpro/ops';
import { writeTfjsArtifact, type TensorData } from '@virnucpro/weights';
import { BpeTokenizer } from './bpe-tokenizer.js';
import { readDnabertConfig, toHfConfigJson } from './dnabert-config.js';
import { canonicalDnabertNames, dnabertWeightsFromStateDict, expectedDnabertTensors } from './dnabert-weights.js';
import { readDnabertStateDict } from './load-dnabert.js';


async function fsyncPath(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/**
 * Converts a DNABERT-S / DNABERT-2 model directory (safetensors or pytorch_model.bin, with or
 * without the `bert.` prefix) into a tfjs weights artifact directory that `loadDnabert` reads:
 * `model.json` + shards holding exactly the encoder tensors under canonical names (pooler and
 * MLM head dropped), plus `config.json` and the unchanged `tokenizer.json`. Written into a temp
 * directory next to `dest` and renamed into place, so a failure leaves nothing at `dest`.
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
  const temp = tempPathFor(resolve(dest));
  try {
    await writeTfjsArtifact(temp, kept, { format: 'virnucpro-dnabert', source: path, config: toHfConfigJson(config) });
    await writeFile(join(temp, 'config.json'), `${JSON.stringify(toHfConfigJson(config), null, 2)}\n`);
    await copyFile(join(src, 'tokenizer.json'), join(temp, 'tokenizer.json'));
    for (const f of await readdir(temp)) await fsyncPath(join(temp, f));
    await rename(temp, dest);
    await fsyncPath(dirname(resolve(dest)));
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  return { dest, tensors: kept.size, parameters, source: path };
}
