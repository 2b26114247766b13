// Models a user already has: the Hugging Face hub cache (HF_HUB_CACHE / HF_HOME / ~/.cache/huggingface/hub) is
// used by model resolution and by `models download` instead of downloading again; HF_ENDPOINT names a mirror;
// `models check` verifies a folder copied by hand. No network: a local server and fixture files.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync, copyFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadModels } from '../src/download/download-models.js';
import { findHfSnapshot, hfHubCache } from '../src/download/hf-cache.js';
import { resolveModelPaths } from '../src/pipeline/resolve-models.js';
import { bin, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'hf-cache-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

/** Puts a model folder's files into a hub cache as huggingface_hub does: blobs by hash, snapshot links, refs/main. */
function cacheRepo(cache: string, repo: string, from: string, files: string[]): string {
  const repoDir = join(cache, `models--${repo.replace('/', '--')}`);
  const commit = createHash('sha1').update(repo).digest('hex');
  const snapshot = join(repoDir, 'snapshots', commit);
  mkdirSync(join(repoDir, 'blobs'), { recursive: true });
  mkdirSync(snapshot, { recursive: true });
  mkdirSync(join(repoDir, 'refs'), { recursive: true });
  writeFileSync(join(repoDir, 'refs', 'main'), commit);
  for (const file of files) {
    const hash = sha256(join(from, file));
    copyFileSync(join(from, file), join(repoDir, 'blobs', hash));
    symlinkSync(join('..', '..', 'blobs', hash), join(snapshot, file));
  }
  return snapshot;
}

/** Runs the CLI without blocking this process (the test's HTTP server must keep answering). */
function runCliAsync(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ status: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const esmSource = join(testData, 'esm2-transformers5', 'masked-lm');
const dnabertSource = join(testData, 'e2e', 'dnabert-tiny');
const cache = join(tmp, 'hub');
let esmSnapshot: string;
let dnabertSnapshot: string;
beforeAll(() => {
  esmSnapshot = cacheRepo(cache, 'facebook/esm2_t36_3B_UR50D', esmSource, ['config.json', 'model.safetensors']);
  dnabertSnapshot = cacheRepo(cache, 'zhihan1996/DNABERT-S', dnabertSource, ['config.json', 'model.safetensors', 'tokenizer.json']);
});

describe('the Hugging Face hub cache folder', () => {
  it('is HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub', () => {
    expect(hfHubCache({ HF_HUB_CACHE: '/a/hub', HF_HOME: '/b' })).toBe('/a/hub');
    expect(hfHubCache({ HF_HOME: '/b' })).toBe('/b/hub');
    expect(hfHubCache({ XDG_CACHE_HOME: '/x' })).toBe('/x/huggingface/hub');
    expect(hfHubCache({})).toBe(join(homedir(), '.cache', 'huggingface', 'hub'));
  });

  it('finds the snapshot refs/main names, and no snapshot whose weights are missing', () => {
    expect(findHfSnapshot(cache, 'facebook/esm2_t36_3B_UR50D')).toBe(esmSnapshot);
    expect(findHfSnapshot(cache, 'facebook/esm2_t33_650M_UR50D')).toBeUndefined();
    const partial = cacheRepo(join(tmp, 'partial-hub'), 'facebook/esm2_t36_3B_UR50D', esmSource, ['config.json']);
    expect(partial).toBeDefined();
    expect(findHfSnapshot(join(tmp, 'partial-hub'), 'facebook/esm2_t36_3B_UR50D')).toBeUndefined();
  });
});

describe('model resolution', () => {
  it('takes ESM-2 and DNABERT-S from the cache when the models folder has neither', () => {
    const paths = resolveModelPaths({ modelsDir: join(tmp, 'empty-models'), modelType: 500, mlp: join(testData, 'e2e', 'mlp.pth') }, cache);
    expect(paths).toEqual({ esm: esmSnapshot, dnabert: dnabertSnapshot, mlp: join(testData, 'e2e', 'mlp.pth') });
  });

  it('predict runs on models found in HF_HUB_CACHE', async () => {
    const input = join(testData, 'e2e', 'test_fixed_500bp', 'test_fixed_500bp.fa');
    const out = join(tmp, 'predict-out');
    const r = await runCliAsync(
      ['predict', input, '--models-dir', join(tmp, 'empty-models'), '--mlp', join(testData, 'e2e', 'mlp.pth'), '--length', '500', '--backend', 'cpu', '--quiet', '--out-dir', out],
      { HF_HUB_CACHE: cache },
    );
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(readFileSync(join(out, 'prediction_results.txt'), 'utf8').split('\n').length).toBeGreaterThan(2);
  });
});

describe('models download', () => {
  let server: Server;
  let base: string;
  const requests: string[] = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests.push(req.url!);
      const esm = '/facebook/esm2_t6_8M_UR50D/resolve/main/';
      if (req.url === `${esm}config.json`) return void res.end('{"hidden_size": 320}');
      if (req.url === `${esm}model.safetensors`) return void res.end(Buffer.alloc(1000, 7));
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('points models.json at the cached snapshots and downloads nothing for them', async () => {
    const modelsDir = join(tmp, 'from-cache');
    requests.length = 0;
    const r = await downloadModels({ modelsDir, esmSize: '3B', only: ['esm', 'dnabert'], hfBase: base, hfCache: cache, log: () => undefined });
    expect(requests).toEqual([]);
    expect(r.fromHfCache).toEqual(['facebook/esm2_t36_3B_UR50D', 'zhihan1996/DNABERT-S']);
    expect(JSON.parse(readFileSync(join(modelsDir, 'models.json'), 'utf8'))).toMatchObject({ esm: esmSnapshot, dnabert: dnabertSnapshot });
    expect(resolveModelPaths({ modelsDir, modelType: 500, mlp: join(testData, 'e2e', 'mlp.pth') }, join(tmp, 'no-cache'))).toMatchObject({ esm: esmSnapshot, dnabert: dnabertSnapshot });
  });

  it('honours HF_ENDPOINT (a mirror) and --no-hf-cache', async () => {
    const modelsDir = join(tmp, 'from-mirror');
    requests.length = 0;
    const r = await runCliAsync(['models', 'download', '--only', 'esm', '--esm-size', '8M', '--models-dir', modelsDir, '--no-hf-cache', '--quiet'], { HF_ENDPOINT: base, HF_HUB_CACHE: cache });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(requests).toContain('/facebook/esm2_t6_8M_UR50D/resolve/main/model.safetensors');
    expect(readFileSync(join(modelsDir, 'esm2_t6_8M_UR50D', 'model.safetensors')).length).toBe(1000);
    // models check compares with the sizes and hashes the download recorded.
    truncateSync(join(modelsDir, 'esm2_t6_8M_UR50D', 'model.safetensors'), 10);
    const check = await runCliAsync(['models', 'check', '--models-dir', modelsDir]);
    expect(check.stderr).toContain(`virnucpro: ${join(modelsDir, 'esm2_t6_8M_UR50D', 'model.safetensors')}: 10 bytes, but manifest.json says 1000 (copy incomplete?)`);
    expect(check.status).toBe(2);
  });
});

describe('virnucpro models check', () => {
  it('passes a whole folder and names a truncated file in one line, exit 2', async () => {
    const modelsDir = join(tmp, 'check-me');
    await downloadModels({ modelsDir, esmSize: '3B', only: ['esm', 'dnabert'], hfCache: cache, log: () => undefined });
    writeFileSync(join(modelsDir, 'a.pth'), 'x');
    writeFileSync(join(modelsDir, 'models.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(modelsDir, 'models.json'), 'utf8')), mlp: { 300: 'a.pth', 500: 'a.pth' } }));
    const good = await runCliAsync(['models', 'check', modelsDir]);
    expect(good.stderr).toMatch(/check-me: 5 files checked \(5 by sha256\), every model complete\n$/);
    expect(good.status).toBe(0);
    // A copy that broke off: the blob behind the snapshot link is short.
    const copy = join(tmp, 'hub-copy');
    const snapshot = cacheRepo(copy, 'facebook/esm2_t36_3B_UR50D', esmSource, ['config.json', 'model.safetensors']);
    truncateSync(join(snapshot, 'model.safetensors'), 100);
    writeFileSync(join(modelsDir, 'models.json'), JSON.stringify({ ...JSON.parse(readFileSync(join(modelsDir, 'models.json'), 'utf8')), esm: snapshot }));
    const bad = await runCliAsync(['models', 'check', modelsDir]);
    expect(bad.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^virnucpro: .*hub-copy\/.*\/model\.safetensors: sha256 [0-9a-f]{64}, but its Hugging Face cache blob name says [0-9a-f]{64} \(damaged copy\?\)$/)]);
    expect(bad.status).toBe(2);
  });
});
