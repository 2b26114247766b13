import { existsSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { openSafetensors, readSafetensors, type TensorData } from '@virnucpro/weights';
import { canonicalLayout, knownEsm2Layouts, recognizeEsm2Layout, type Esm2Layout } from './checkpoint-layout.js';
import { canonicalEsm2Name, type CanonicalName } from './checkpoint-names.js';
import { configFromHuggingFace, esm2Architectures, esm2Defaults, validateConfig, type Esm2Config } from './esm2-config.js';
import { checkEsm2StateDict, type Esm2TensorReader } from './esm2-weights.js';
import { readTorchEsm2, readTfjsEsm2, isTfjsArtifactDir } from './torch-and-tfjs.js';

export interface Esm2Checkpoint {
  config: Esm2Config;
  /** Canonical (fair-esm) names → tensors, only those the forward pass uses. */
  tensors: Map<CanonicalName, TensorData>;
  /** The file or folder it came from. */
  source: string;
}

/**
 * Reads an ESM-2 checkpoint in any supported layout:
 * - a Hugging Face folder: config.json + model.safetensors (or a sharded index, or pytorch_model.bin);
 * - a fair-esm `.pt` file (config from `cfg['model']`);
 * - a `.safetensors` / `.bin` file (config from a config.json beside it, else inferred from the shapes);
 * - a tfjs artifact folder written by `virnucpro convert esm2`.
 */
export async function loadEsm2Checkpoint(path: string): Promise<Esm2Checkpoint> {
  if (!existsSync(path)) throw new Error(`${path}: no such file or folder`);
  if (statSync(path).isDirectory()) {
    if (isTfjsArtifactDir(path)) return finish({ ...(await readTfjsEsm2(path)), layout: canonicalLayout }, path);
    return loadEsm2Checkpoint(weightsFileIn(path));
  }
  const hfConfig = await configBeside(path);
  if (path.endsWith('.safetensors') || path.endsWith('.safetensors.index.json')) {
    const names: string[] = []; // every name in the file, for recognising its layout
    const { tensors } = await readSafetensors(path, { filter: (n) => names.push(n) > 0 && typeof canonicalEsm2Name(n) === 'string' });
    return finish({ config: hfConfig, tensors: canonicalize(tensors, path), layout: recognizeLayout(names, path) }, path);
  }
  if (!/\.(bin|pt|pth|ckpt)$/i.test(path)) {
    throw new Error(`${path}: unknown checkpoint format (expected a folder, .safetensors, .bin, .pt or .pth)`);
  }
  const torch = await readTorchEsm2(path);
  const layout = recognizeLayout(torch.tensors.keys(), path);
  return finish({ config: hfConfig ?? torch.config, tensors: canonicalize(torch.tensors, path), layout }, path);
}

/** A checkpoint whose config and shapes are checked, its tensors read when asked for (uploadEsm2Weights). Call close(). */
export interface OpenedEsm2Checkpoint extends Esm2TensorReader {
  config: Esm2Config;
  source: string;
  close(): Promise<void>;
}

/**
 * loadEsm2Checkpoint without reading the tensors yet: a single `.safetensors` file (the Hugging Face layout, the
 * released 3B model's) is opened, its header checked as loadEsm2Checkpoint checks the tensors, and each tensor is
 * read when the upload asks for it. Other layouts are read whole first and handed out from memory.
 */
export async function openEsm2Checkpoint(path: string): Promise<OpenedEsm2Checkpoint> {
  const file = existsSync(path) && statSync(path).isDirectory() && !isTfjsArtifactDir(path) ? weightsFileIn(path) : path;
  if (!file.endsWith('.safetensors') || !existsSync(file) || !statSync(file).isFile()) return fromMemory(await loadEsm2Checkpoint(path));
  const hfConfig = await configBeside(file);
  const safetensors = await openSafetensors(file);
  try {
    const names = safetensors.names;
    // The file's tensors that the forward pass uses, by canonical name (as loadEsm2Checkpoint's filter keeps them).
    const used = new Map(names.filter((name) => typeof canonicalEsm2Name(name) === 'string').map((name) => [name, safetensors.entries.get(name)!]));
    const entries = canonicalize(used, file);
    const fileNames = new Map([...used.keys()].map((name) => [canonicalEsm2Name(name) as CanonicalName, name]));
    const layout = recognizeLayout(names, file);
    const config = hfConfig ?? inferConfig(entries, file);
    checkEsm2StateDict(config, entries, file, layout);
    return {
      config,
      source: file,
      has: (name) => entries.has(name),
      read: async (wanted, allocate) => {
        const read = await Promise.all(wanted.map((name) => safetensors.readTensor(fileNames.get(name) ?? name, allocate)));
        return new Map(wanted.map((name, i) => [name, read[i]]));
      },
      close: () => safetensors.close(),
    };
  } catch (error) {
    await safetensors.close();
    throw error;
  }
}

/** A checkpoint already in memory as a reader: each tensor handed over once (its memory goes with it). */
function fromMemory(checkpoint: Esm2Checkpoint): OpenedEsm2Checkpoint {
  const { tensors } = checkpoint;
  return {
    config: checkpoint.config,
    source: checkpoint.source,
    has: (name) => tensors.has(name),
    read: async (wanted) => {
      const taken = new Map(wanted.map((name) => [name, tensors.get(name)!]));
      for (const name of wanted) tensors.delete(name);
      return taken;
    },
    close: async () => undefined,
  };
}

/** The weights file of a Hugging Face folder. */
function weightsFileIn(folder: string): string {
  const weightsFile = ['model.safetensors', 'model.safetensors.index.json', 'pytorch_model.bin']
    .map((f) => join(folder, f))
    .find((f) => existsSync(f));
  if (!weightsFile) throw new Error(`${folder}: expected model.safetensors, model.safetensors.index.json or pytorch_model.bin in this folder`);
  return weightsFile;
}

/** The config.json beside a weights file, if there is one. */
async function configBeside(path: string): Promise<Esm2Config | undefined> {
  const configPath = join(dirname(path), 'config.json');
  const hfConfig = existsSync(configPath) ? configFromHuggingFace(await readJson(configPath), configPath) : undefined;
  // An unnamed HF config (empty _name_or_path) is named after its folder.
  if (hfConfig && hfConfig.name === configPath) hfConfig.name = basename(dirname(configPath));
  return hfConfig;
}

/** The checkpoint's naming layout; a file that follows none is refused with the layouts we read. */
function recognizeLayout(names: Iterable<string>, source: string): Esm2Layout {
  const all = [...names];
  const layout = recognizeEsm2Layout(all);
  if (layout) return layout;
  const sample = all.filter((n) => n !== '__metadata__').slice(0, 3);
  throw new Error(`${source}: no ESM-2 layout matched (its tensors: ${sample.length ? sample.join(', ') : 'none'}${all.length > 3 ? ', …' : ''}); expected one of: ${knownEsm2Layouts}`);
}

function finish(loaded: { config?: Esm2Config; tensors: Map<CanonicalName, TensorData>; layout: Esm2Layout }, source: string): Esm2Checkpoint {
  const config = loaded.config ?? inferConfig(loaded.tensors, source);
  checkEsm2StateDict(config, loaded.tensors, source, loaded.layout);
  return { config, tensors: loaded.tensors, source };
}

/** Maps checkpoint names to canonical ones, dropping unused tensors and rejecting foreign ones. */
export function canonicalize<T>(tensors: Map<string, T>, source: string): Map<CanonicalName, T> {
  const out = new Map<CanonicalName, T>();
  const foreign: string[] = [];
  for (const [name, tensor] of tensors) {
    const canonical = canonicalEsm2Name(name);
    if (canonical === undefined) foreign.push(name);
    else if (canonical !== null) out.set(canonical, tensor);
  }
  if (foreign.length) {
    throw new Error(`${source}: tensors that belong to no ESM-2 layout: ${foreign.slice(0, 5).join(', ')}${foreign.length > 5 ? ` (+${foreign.length - 5})` : ''}`);
  }
  return out;
}

/** Architecture from the tensor shapes alone (heads from the rotary inv_freq length, or a known model name). */
export function inferConfig(tensors: ReadonlyMap<CanonicalName, Pick<TensorData, 'shape'>>, source: string): Esm2Config {
  const embed = tensors.get('embed_tokens.weight');
  if (!embed) throw new Error(`${source}: no token embedding (embed_tokens.weight / esm.embeddings.word_embeddings.weight): not an ESM-2 checkpoint`);
  const [vocabSize, embedDim] = embed.shape;
  let numLayers = 0;
  for (const name of tensors.keys()) {
    const m = /^layers\.(\d+)\./.exec(name);
    if (m) numLayers = Math.max(numLayers, Number(m[1]) + 1);
  }
  const fc1 = tensors.get('layers.0.fc1.weight');
  const inv = tensors.get('layers.0.self_attn.rot_emb.inv_freq') ?? tensors.get('rot_emb.inv_freq');
  const known = Object.entries(esm2Architectures).find(([name, a]) => basename(source).includes(name) || (a.numLayers === numLayers && a.embedDim === embedDim));
  const numHeads = inv ? embedDim / (2 * inv.shape[0]) : known?.[1].numHeads;
  if (!numHeads) throw new Error(`${source}: cannot tell the number of attention heads (no config.json, no rotary inv_freq, unknown size)`);
  return validateConfig({
    numLayers,
    embedDim,
    numHeads,
    ffnDim: fc1 ? fc1.shape[0] : 4 * embedDim,
    vocabSize,
    layerNormEps: esm2Defaults.layerNormEps,
    tokenDropout: esm2Defaults.tokenDropout,
    name: known?.[0] ?? basename(source),
  }, source);
}

async function readJson(path: string): Promise<Record<string, unknown>> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new Error(`${path}: not valid JSON (${(error as Error).message})`);
  }
}
