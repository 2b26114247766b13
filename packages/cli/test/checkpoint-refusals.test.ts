// A DNABERT-S or MLP checkpoint that cannot be read is refused the way an ESM-2 one is (esm2-checkpoints.test.ts):
// one line naming the file, the layout recognised (or that none matched) and the first missing tensor in the
// checkpoint's own naming, and exit 2, in every subcommand that loads it.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSafetensors, writeSafetensors, type TensorData } from '@virnucpro/weights';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-refusals-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const demo = join(testData, 'demo-models');
const dna = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');
const features = join(testData, 'mlp-virnucpro', 'merged_orfs.pt');
const without = (tensors: Map<string, TensorData>, name: string) => new Map([...tensors].filter(([n]) => n !== name));
const prefixed = (tensors: Map<string, TensorData>, prefix: string) => new Map([...tensors].map(([n, t]) => [prefix + n, t]));

function expectRefusal(args: string[], message: RegExp): void {
  const r = runCli(args);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toEqual([expect.stringMatching(message)]);
  expect(r.status).toBe(2);
}

describe('a DNABERT-S checkpoint that cannot be read', () => {
  const folders: Record<string, string> = {};
  beforeAll(async () => {
    const { tensors } = await readSafetensors(join(demo, 'dnabert-s-demo', 'model.safetensors'));
    const esm = (await readSafetensors(join(demo, 'esm2-demo', 'model.safetensors'))).tensors;
    const variants: Record<string, Map<string, TensorData>> = {
      'dnabert-s': without(tensors, 'encoder.layer.0.mlp.wo.bias'),
      'dnabert-2': prefixed(without(tensors, 'encoder.layer.0.mlp.wo.bias'), 'bert.'),
      'esm-as-dnabert': esm,
    };
    for (const [name, variant] of Object.entries(variants)) {
      const dir = join(tmp, name);
      cpSync(join(demo, 'dnabert-s-demo'), dir, { recursive: true });
      await writeSafetensors(join(dir, 'model.safetensors'), variant);
      folders[name] = dir;
    }
  });
  const commands: [string, (model: string) => string[]][] = [
    ['predict --dnabert', (model) => ['predict', dna, '--models-dir', demo, '--dnabert', model, '--backend', 'cpu', '-q', '-o', join(tmp, 'out')]],
    ['embed dnabert', (model) => ['embed', 'dnabert', '--model', model, '--input', dna, '-o', join(tmp, 'x.safetensors'), '--backend', 'cpu', '-q']],
    ['convert dnabert', (model) => ['convert', 'dnabert', model, join(tmp, 'converted')]],
  ];

  it.each(commands)('%s: the layout and the missing tensor in its own naming, or no layout; one line, exit 2', (_label, args) => {
    const head = (name: string) => `^virnucpro: cannot load the DNABERT-S model ${folders[name]}: ${folders[name]}/model\\.safetensors: `;
    expectRefusal(args(folders['dnabert-s']), new RegExp(`${head('dnabert-s')}recognised the DNABERT-S, MosaicBERT BertModel \\(no prefix\\) layout of DNABERT-S, but encoder\\.layer\\.0\\.mlp\\.wo\\.bias is missing \\(1 of the 15 tensors a 1-layer model needs\\)$`));
    expectRefusal(args(folders['dnabert-2']), new RegExp(`${head('dnabert-2')}recognised the DNABERT-2, BertForMaskedLM \\(bert\\. prefix\\) layout of DNABERT-S, but bert\\.encoder\\.layer\\.0\\.mlp\\.wo\\.bias is missing`));
    expectRefusal(args(folders['esm-as-dnabert']), new RegExp(`${head('esm-as-dnabert')}no DNABERT-S layout matched \\(its tensors: esm\\.embeddings\\.word_embeddings\\.weight, .*\\); expected one of: DNABERT-S, MosaicBERT`));
  });
});

describe('an MLP checkpoint that cannot be read', () => {
  const files: Record<string, string> = {};
  beforeAll(async () => {
    const { tensors } = await readSafetensors(join(demo, 'mlp-demo-500.safetensors'));
    const dnabert = (await readSafetensors(join(demo, 'dnabert-s-demo', 'model.safetensors'))).tensors;
    const variants: Record<string, Map<string, TensorData>> = {
      plain: without(tensors, 'bn1.running_var'),
      wrapped: prefixed(without(tensors, 'bn1.running_var'), 'module.'),
      foreign: dnabert,
    };
    for (const [name, variant] of Object.entries(variants)) await writeSafetensors((files[name] = join(tmp, `mlp-${name}.safetensors`)), variant);
  });
  const commands: [string, (mlp: string) => string[]][] = [
    ['predict --mlp', (mlp) => ['predict', dna, '--models-dir', demo, '--mlp', mlp, '--backend', 'cpu', '-q', '-o', join(tmp, 'mlp-out')]],
    ['classify --mlp', (mlp) => ['classify', '--mlp', mlp, '--features', features, '--out-dir', join(tmp, 'classify-out')]],
  ];

  it.each(commands)('%s: the same line as every command, exit 2', (_label, args) => {
    const head = (name: string) => `^virnucpro: cannot load the MLP ${files[name]}: `;
    expectRefusal(args(files.plain), new RegExp(`${head('plain')}recognised the VirNucPro MLPClassifier layout of the MLP, but bn1\\.running_var is missing \\(1 of the 8 tensors it needs\\)$`));
    expectRefusal(args(files.wrapped), new RegExp(`${head('wrapped')}recognised the VirNucPro MLPClassifier layout \\(module\\. prefix\\) of the MLP, but module\\.bn1\\.running_var is missing`));
    expectRefusal(args(files.foreign), new RegExp(`${head('foreign')}no VirNucPro MLP layout matched \\(its tensors: embeddings\\.LayerNorm\\.bias, .*\\); expected VirNucPro's MLPClassifier`));
  });
});
