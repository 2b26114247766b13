import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readSafetensors, readShardedSafetensors, type TensorData } from '@virnucpro/weights';
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

/** The weight files a model directory may hold, in the order they are preferred. */
export const dnabertWeightFiles = ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin'] as const;

/** Reads the state dict of a model directory (safetensors, sharded safetensors or pytorch_model.bin). */
export async function readDnabertStateDict(dir: string): Promise<{ tensors: Map<string, TensorData>; path: string }> {
  const found = dnabertWeightFiles.map((f) => join(dir, f)).find((p) => existsSync(p));
  if (!found) throw new Error(`${dir}: no weights found (expected one of ${dnabertWeightFiles.join(', ')})`);
  if (found.endsWith('.safetensors')) return { tensors: (await readSafetensors(found)).tensors, path: found };
  if (found.endsWith('.index.json')) return { tensors: (await readShardedSafetensors(found)).tensors, path: found };
  return { tensors: await readTorchStateDict(found), path: found };
}

async function readTorchStateDict(path: string): Promise<Map<string, TensorData>> {
  throw new Error(`${path}: reading pytorch_model.bin is not available yet; convert it to model.safetensors`);
}

/**
 * Loads a DNABERT-S / DNABERT-2 model directory: `config.json`, the weights (`model.safetensors`,
 * sharded safetensors or `pytorch_model.bin`; names with or without the DNABERT-2 `bert.` prefix)
 * and `tokenizer.json`. Tensors are created on the current tfjs backend (call initBackend first).
 */
export async function loadDnabert(dir: string): Promise<LoadedDnabert> {
  if (!existsSync(dir)) throw new Error(`${dir}: model directory not found`);
  for (const f of ['config.json', 'tokenizer.json']) {
    if (!existsSync(join(dir, f))) throw new Error(`${dir}: missing ${f} (a DNABERT model directory needs config.json, weights and tokenizer.json)`);
  }
  const config = await readDnabertConfig(join(dir, 'config.json'));
  const tokenizer = await BpeTokenizer.fromFile(join(dir, 'tokenizer.json'));
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(`${dir}: tokenizer.json has ${tokenizer.vocabSize} tokens but config.json vocab_size is ${config.vocabSize}`);
  }
  const { tensors, path } = await readDnabertStateDict(dir);
  const weights = dnabertWeightsFromStateDict(tensors, config, path);
  return { model: new DnabertModel(config, weights), tokenizer, config, weightsPath: path };
}
