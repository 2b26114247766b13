import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { loadStateDict, readTfjsArtifact, type TensorData } from '@virnucpro/weights';
import { BpeTokenizer } from './bpe-tokenizer.js';
import { readDnabertConfig, type DnabertConfig } from './dnabert-config.js';
import { DnabertModel } from './dnabert-model.js';
import { dnabertWeightsFromStateDict } from './dnabert-weights.js';

export interface LoadedDnabert {
  model: DnabertModel;
  tokenizer: BpeTokenizer;
  config: DnabertConfig;
  /** The weight file that was read. */
  weightsPath: string;
}

export interface LoadDnabertOptions {
  /** Read this weight file instead of the directory's first of dnabertWeightFiles. */
  weights?: string;
}

/** The weight files a model directory may hold, in the order they are preferred (model.json = converted tfjs artifact). */
export const dnabertWeightFiles = [
  'model.safetensors',
  'model.safetensors.index.json',
  'pytorch_model.bin',
  'pytorch_model.bin.index.json',
  'model.json',
] as const;

/** Reads the state dict of a model directory, or of `weightsFile` when given. */
export async function readDnabertStateDict(dir: string, weightsFile?: string): Promise<{ tensors: Map<string, TensorData>; path: string }> {
  const found = weightsFile ?? dnabertWeightFiles.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (!found) throw new Error(`${dir}: no weights found (expected one of ${dnabertWeightFiles.join(', ')})`);
  if (!existsSync(found)) throw new Error(`${found}: weights file not found`);
  if (basename(found) === 'model.json') return { tensors: (await readTfjsArtifact(dirname(found))).tensors, path: found };
  return { tensors: await loadStateDict(found), path: found };
}

/**
 * Loads a DNABERT-S / DNABERT-2 model directory: `config.json`, the weights (`model.safetensors`,
 * sharded safetensors, `pytorch_model.bin` or a converted tfjs `model.json`; names with or without the DNABERT-2 `bert.` prefix)
 * and `tokenizer.json`. Tensors are created on the current tfjs backend (started first: @virnucpro/compute's startCompute).
 */
export async function loadDnabert(dir: string, options: LoadDnabertOptions = {}): Promise<LoadedDnabert> {
  if (!existsSync(dir)) throw new Error(`${dir}: model directory not found`);
  for (const f of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir}: missing ${f} (a DNABERT model directory needs config.json, weights and tokenizer.json)`);
  }
  const config = await readDnabertConfig(join(dir, 'config.json'));
  const tokenizer = await BpeTokenizer.fromFile(join(dir, 'tokenizer.json'));
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(`${dir}: tokenizer.json has ${tokenizer.vocabSize} tokens but config.json vocab_size is ${config.vocabSize}`);
  }
  const { tensors, path } = await readDnabertStateDict(dir, options.weights);
  const weights = dnabertWeightsFromStateDict(tensors, config, path);
  return { model: new DnabertModel(config, weights), tokenizer, config, weightsPath: path };
}
