import { describe, it, expect, beforeAll } from 'vitest';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { resolvePredictOptions } from '../src/config/resolve-predict-options.js';
import { loadConfigFile } from '../src/config/load-config-file.js';
import { defaultConfigYaml } from '../src/config/default-config.js';
import { UsageError } from '../src/errors.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'vnp-config-'));
});
function writeConfig(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('predict options: defaults < config file < flags', () => {
  it('applies defaults and derives --length from --model-type', () => {
    const o = resolvePredictOptions({ input: 'in.fa', 'out-dir': 'out', 'model-type': '300' }, {});
    expect(o.modelType).toBe(300);
    expect(o.length).toBe(300);
    expect(o.tokenBudget).toBeUndefined(); // the backend's default, decided by @virnucpro/compute (its token-budget.test.ts)
    expect(o.backend).toBe('auto');
    expect(o.resume).toBe(false);
    expect(o.devices).toEqual([]);
    expect(o.modelsDir).toMatch(/\.cache[/\\]virnucpro$/);
  });
  it('lets the config file set values and flags override them', () => {
    const cfg = writeConfig('a.yaml', 'token-budget: 8192\nbackend: wasm\ndevices: [0, 1]\nesm: models/esm\nout-dir: results\ninput: x.fa\n');
    const o = resolvePredictOptions({ config: cfg, backend: 'cpu' }, {});
    expect(o.tokenBudget).toBe(8192);
    expect(o.backend).toBe('cpu');
    expect(o.devices).toEqual(['0', '1']);
    // relative paths in a config file are relative to the file's folder
    expect(o.esm).toBe(join(dir, 'models/esm'));
    expect(o.input).toBe(join(dir, 'x.fa'));
  });
  it('reads VIRNUCPRO_MODELS_DIR', () => {
    const o = resolvePredictOptions({ input: 'a.fa', 'out-dir': 'o' }, { VIRNUCPRO_MODELS_DIR: '/models/here' });
    expect(o.modelsDir).toBe('/models/here');
  });
  it('parses comma lists from flags', () => {
    expect(resolvePredictOptions({ input: 'a', 'out-dir': 'o', devices: '0,2' }, {}).devices).toEqual(['0', '2']);
  });
});

describe('predict options: clear errors', () => {
  const bad = (flags: Record<string, unknown>) => () => resolvePredictOptions({ input: 'a.fa', 'out-dir': 'o', ...flags }, {});
  it('names the flag and the expectation', () => {
    expect(bad({ 'token-budget': 'lots' })).toThrow(/--token-budget: expected a whole number, got "lots"/);
    expect(bad({ 'token-budget': '3' })).toThrow(/≥ 16/);
    expect(bad({ 'model-type': '400' })).toThrow(/--model-type: expected one of 300, 500/);
    expect(bad({ backend: 'tpu' })).toThrow(/--backend: expected one of auto, cpu, wasm, onednn, webgpu, tensorflow, cuda, got "tpu"/);
    expect(bad({ 'refine-margin': 'wide' })).toThrow(/--refine-margin: expected a number ≥ 0 and ≤ 0.5, got "wide"/);
    expect(bad({ 'refine-margin': '0.6' })).toThrow(/--refine-margin: expected a number ≥ 0 and ≤ 0.5, got "0.6"/);
    expect(bad({ 'refine-margin': '-0.01' })).toThrow(/--refine-margin/);
  });
  it('takes --refine-margin as a number, 0.04 unless given', () => {
    expect(resolvePredictOptions({ input: 'a', 'out-dir': 'o' }, {}).refineMargin).toBe(0.04);
    expect(resolvePredictOptions({ input: 'a', 'out-dir': 'o', 'refine-margin': '0.1' }, {}).refineMargin).toBe(0.1);
    expect(resolvePredictOptions({ input: 'a', 'out-dir': 'o', 'refine-margin': '0' }, {}).refineMargin).toBe(0);
  });
  it('rejects contradictions and missing essentials', () => {
    expect(bad({ resume: true, force: true })).toThrow(/--resume and --force/);
    expect(bad({ length: '300' })).toThrow(/trained on 500 bp chunks/);
    expect(() => resolvePredictOptions({ 'out-dir': 'o' }, {})).toThrow(/no input/);
    expect(() => resolvePredictOptions({ input: 'a.fa' }, {})).toThrow(/--out-dir/);
  });
  it("reads input: - as standard input (unquoted or quoted), not as a file named '-' beside the config", () => {
    const dir = mkdtempSync(join(tmpdir(), 'cfg-stdin-'));
    for (const [name, line] of [['bare', 'input: -'], ['comment', 'input:   -   # a pipe'], ['quoted', 'input: "-"']]) {
      const path = join(dir, `${name}.yaml`);
      writeFileSync(path, `${line}\nworkers: 1\n`);
      const config = loadConfigFile(path);
      expect(config.get('input')?.value, name).toBe('-');
      expect(config.get('workers')?.where).toBe(`${path} line 2 (workers)`);
    }
    // Other values stay YAML: a list is still a type error, not a path.
    const list = join(dir, 'list.yaml');
    writeFileSync(list, 'input:\n  - a.fa\n');
    expect(() => loadConfigFile(list)).toThrow(/list.yaml line 1 \(input\)/);
  });
  it('names file and line for unknown keys, bad values and YAML syntax', () => {
    const unknown = writeConfig('u.yaml', '# comment\nbackend: cpu\ntoken-budjet: 10\n');
    expect(() => loadConfigFile(unknown)).toThrow(new RegExp(`u.yaml line 3: unknown option 'token-budjet'`));
    const wrong = writeConfig('w.yaml', 'workers: two\n');
    expect(() => loadConfigFile(wrong)).toThrow(/w.yaml line 1 \(workers\): expected a whole number, got "two"/);
    const broken = writeConfig('b.yaml', 'backend: cpu\n  workers: [1\n');
    expect(() => loadConfigFile(broken)).toThrow(/b.yaml line \d+: invalid YAML/);
    expect(() => loadConfigFile(join(dir, 'missing.yaml'))).toThrow(/cannot read config file/);
    const cliOnly = writeConfig('c.yaml', 'config: other.yaml\n');
    expect(() => loadConfigFile(cliOnly)).toThrow(/unknown option 'config'/);
  });
});

describe('predict options: --backend cuda and --precision', () => {
  const opts = (flags: Record<string, unknown>) => resolvePredictOptions({ input: 'a.fa', 'out-dir': 'o', ...flags }, {});
  it('accepts every ops backend name, cuda included, and fp32/fp16/bf16', () => {
    expect(opts({ backend: 'cuda' }).backend).toBe('cuda');
    expect(opts({ backend: 'cuda' }).precision).toBeUndefined(); // the backend's default: fp16 on cuda
    for (const precision of ['fp32', 'fp16', 'bf16', 'fp8']) expect(opts({ backend: 'cuda', precision }).precision).toBe(precision);
    expect(opts({ backend: 'cpu', precision: 'fp32' }).precision).toBe('fp32');
    // auto may still end on cuda: decided once the backend is known
    expect(opts({ precision: 'bf16' }).precision).toBe('bf16');
  });
  it('rejects other precisions, and fp16/bf16 on a backend other than cuda', () => {
    expect(() => opts({ backend: 'cuda', precision: 'int8' })).toThrow(/--precision: expected one of fp32, fp16, bf16, fp8, got "int8"/);
    for (const backend of ['cpu', 'wasm', 'webgpu', 'tensorflow']) {
      for (const precision of ['fp16', 'bf16', 'fp8']) {
        expect(() => opts({ backend, precision })).toThrow(UsageError);
        expect(() => opts({ backend, precision })).toThrow(new RegExp(`--precision ${precision} needs --backend cuda; the ${backend} backend computes in fp32 only`));
      }
    }
  });
  it('reads precision from the config file, checked against the backend like a flag', () => {
    const cfg = writeConfig('cuda.yaml', 'backend: cuda\nprecision: bf16\ninput: x.fa\nout-dir: out\n');
    expect(resolvePredictOptions({ config: cfg }, {})).toMatchObject({ backend: 'cuda', precision: 'bf16' });
    expect(() => resolvePredictOptions({ config: cfg, backend: 'cpu' }, {})).toThrow(/--precision bf16 needs --backend cuda/);
    expect(resolvePredictOptions({ config: cfg, backend: 'cpu', precision: 'fp32' }, {}).precision).toBe('fp32');
    const bad = writeConfig('p.yaml', 'precision: half\n');
    expect(() => loadConfigFile(bad)).toThrow(/p.yaml line 1 \(precision\): expected one of fp32, fp16, bf16/);
  });
});

describe('config init template', () => {
  it('is valid YAML whose values are the defaults and loads cleanly', () => {
    const text = defaultConfigYaml();
    const parsed = parse(text) as Record<string, unknown>;
    expect(parsed['token-budget']).toBeUndefined(); // commented out: its default depends on the backend
    expect(text).toContain('# token-budget:');
    expect(parsed['model-type']).toBe(500);
    expect(parsed.config).toBeUndefined();
    const path = writeConfig('init.yaml', text);
    expect(loadConfigFile(path).get('backend')?.value).toBe('auto');
    expect(readFileSync(path, 'utf8')).toContain('# ESM-2 tokens per packed batch');
  });
});
