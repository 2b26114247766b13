import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { bin, runCli } from './cli-harness.js';
import { createServer, type Server, type IncomingMessage } from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { downloadModels } from '../src/download/download-models.js';
import { IntegrityError } from '../src/download/download-file.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255));

// The upstream layout: <repo>/resolve/main/<file> (Hugging Face) and <repo>/raw/main/<file> (GitHub).
interface Served { body: Buffer; announceSha?: string; redirect?: boolean }
const files = new Map<string, Served>();
const requests: { url: string; range?: string }[] = [];
/** URL → number of bytes to send before dropping the connection (once). */
const dropAfter = new Map<string, number>();
let server: Server;
let base: string;

function handle(req: IncomingMessage, res: import('node:http').ServerResponse) {
  const url = req.url!;
  requests.push({ url, range: req.headers.range });
  if (url.startsWith('/cdn/')) return serveBody(files.get(url.slice(4))!, req, res, url.slice(4));
  const f = files.get(url);
  if (!f) {
    res.writeHead(404).end('not found');
    return;
  }
  if (f.redirect) {
    // like the hub: the first hop carries the size and sha256, the content comes from a CDN
    res.writeHead(302, { location: `/cdn${url}`, 'x-linked-size': String(f.body.length), 'x-linked-etag': `"${f.announceSha ?? sha(f.body)}"` }).end();
    return;
  }
  serveBody(f, req, res, url);
}
function serveBody(f: Served, req: IncomingMessage, res: import('node:http').ServerResponse, key: string) {
  let start = 0;
  const m = req.headers.range?.match(/^bytes=(\d+)-$/);
  if (m) start = Number(m[1]);
  if (start >= f.body.length && m) {
    res.writeHead(416, { 'content-range': `bytes */${f.body.length}` }).end();
    return;
  }
  const headers: Record<string, string> = { 'content-length': String(f.body.length - start), 'accept-ranges': 'bytes' };
  if (m) headers['content-range'] = `bytes ${start}-${f.body.length - 1}/${f.body.length}`;
  res.writeHead(m ? 206 : 200, headers);
  const cut = dropAfter.get(key);
  if (cut !== undefined) {
    dropAfter.delete(key);
    // let the client take in the first bytes, then cut the connection mid-transfer
    res.write(f.body.subarray(start, start + cut), () => setTimeout(() => res.destroy(), 150));
    return;
  }
  res.end(f.body.subarray(start));
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function publish() {
  files.clear();
  const esm = '/facebook/esm2_t6_8M_UR50D/resolve/main';
  files.set(`${esm}/config.json`, { body: Buffer.from('{"hidden_size": 320}') });
  // sharded safetensors: index + two shards behind CDN redirects
  files.set(`${esm}/model.safetensors.index.json`, {
    body: Buffer.from(JSON.stringify({ weight_map: { a: 'model-00001-of-00002.safetensors', b: 'model-00002-of-00002.safetensors', c: 'model-00001-of-00002.safetensors' } })),
  });
  files.set(`${esm}/model-00001-of-00002.safetensors`, { body: bytes(50_000, 1), redirect: true });
  files.set(`${esm}/model-00002-of-00002.safetensors`, { body: bytes(30_000, 2), redirect: true });
  const dn = '/zhihan1996/DNABERT-S/resolve/main';
  files.set(`${dn}/config.json`, { body: Buffer.from('{"hidden_size": 768}') });
  files.set(`${dn}/tokenizer.json`, { body: Buffer.from('{"model": {}}') });
  files.set(`${dn}/pytorch_model.bin`, { body: bytes(120_000, 3), redirect: true }); // no safetensors: fallback
  files.set('/Li-Jing-1997/VirNucPro/raw/main/300_model.pth', { body: bytes(7_000, 4) });
  files.set('/Li-Jing-1997/VirNucPro/raw/main/500_model.pth', { body: bytes(7_000, 5) });
}

describe('models download from a local mirror', () => {
  let dir: string;
  beforeAll(() => {
    publish();
    dir = mkdtempSync(join(tmpdir(), 'vnp-models-'));
  });
  const run = (extra: Partial<Parameters<typeof downloadModels>[0]> = {}) =>
    downloadModels({ modelsDir: dir, esmSize: '8M', hfBase: base, githubBase: base, knownFiles: {}, ...extra });

  it('resumes an interrupted transfer with an HTTP Range request', async () => {
    const key = '/zhihan1996/DNABERT-S/resolve/main/pytorch_model.bin';
    dropAfter.set(key, 40_000);
    // The error names the URL (the CDN hop it broke on) and how far it got; the partial file stays for the resume.
    await expect(run({ only: ['dnabert'] })).rejects.toThrow(new RegExp(`^download of ${base}${key} broke off after \\d+ bytes: .*\\(run the command again to resume\\)$`));
    const part = join(dir, 'DNABERT-S/pytorch_model.bin.part');
    expect(existsSync(part)).toBe(true);
    const partial = readFileSync(part).length;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(120_000);
    requests.length = 0;
    const r = await run({ only: ['dnabert'] });
    expect(r.downloaded).toContain('DNABERT-S/pytorch_model.bin');
    expect(requests.find((q) => q.url === `/cdn${key}`)?.range).toBe(`bytes=${partial}-`);
    expect(readFileSync(join(dir, 'DNABERT-S/pytorch_model.bin')).equals(files.get(key)!.body)).toBe(true);
    expect(existsSync(part)).toBe(false);
  });

  it('fetches every file in the upstream layout, sharded and single, and writes the manifest and index', async () => {
    const r = await run();
    expect(r.alreadyPresent).toEqual(expect.arrayContaining(['DNABERT-S/pytorch_model.bin', 'DNABERT-S/config.json']));
    for (const rel of ['esm2_t6_8M_UR50D/config.json', 'esm2_t6_8M_UR50D/model-00001-of-00002.safetensors', 'esm2_t6_8M_UR50D/model-00002-of-00002.safetensors', '300_model.pth', '500_model.pth']) {
      expect(existsSync(join(dir, rel)), rel).toBe(true);
    }
    expect(existsSync(join(dir, 'esm2_t6_8M_UR50D/model.safetensors'))).toBe(false);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).files;
    expect(manifest['esm2_t6_8M_UR50D/model-00002-of-00002.safetensors']).toMatchObject({ size: 30_000, sha256: sha(bytes(30_000, 2)), hashSource: 'server' });
    expect(manifest['300_model.pth'].hashSource).toBe('recorded-on-first-download');
    expect(r.recordedHashes).toContain('300_model.pth');
    expect(JSON.parse(readFileSync(join(dir, 'models.json'), 'utf8'))).toMatchObject({ esm: 'esm2_t6_8M_UR50D', dnabert: 'DNABERT-S', mlp: { '300': '300_model.pth', '500': '500_model.pth' } });
  });

  it('does not fetch files that are already complete', async () => {
    requests.length = 0;
    const r = await run();
    expect(r.downloaded).toEqual([]);
    // only the 404 probe for model.safetensors and the index (kept) are consulted, no content fetches
    expect(requests.filter((q) => q.url.startsWith('/cdn/'))).toEqual([]);
  });

  it('--verify notices a file changed on disk', async () => {
    writeFileSync(join(dir, '500_model.pth'), bytes(7_000, 9));
    await expect(run({ only: ['mlp'], verify: true })).rejects.toThrow(/500_model.pth: sha256 .* differs from the recorded/);
  });
});

describe('integrity checks', () => {
  it('rejects a file whose sha256 differs from the one the server announced, leaving nothing behind', async () => {
    publish();
    const key = '/zhihan1996/DNABERT-S/resolve/main/pytorch_model.bin';
    files.set(key, { body: bytes(120_000, 3), redirect: true, announceSha: sha(bytes(120_000, 7)) });
    const dir = mkdtempSync(join(tmpdir(), 'vnp-models-bad-'));
    const err = await downloadModels({ modelsDir: dir, esmSize: '8M', only: ['dnabert'], hfBase: base, githubBase: base, knownFiles: {} }).catch((e) => e);
    expect(err).toBeInstanceOf(IntegrityError);
    expect(String(err.message)).toMatch(/does not match the expected/);
    expect(existsSync(join(dir, 'DNABERT-S/pytorch_model.bin'))).toBe(false);
    expect(existsSync(join(dir, 'DNABERT-S/pytorch_model.bin.part'))).toBe(false);
  });
  it('checks built-in known sizes/hashes', async () => {
    publish();
    const dir = mkdtempSync(join(tmpdir(), 'vnp-models-known-'));
    const knownFiles = { 'DNABERT-S/tokenizer.json': { sha256: sha(Buffer.from('something else')), source: 'test' } };
    await expect(downloadModels({ modelsDir: dir, esmSize: '8M', only: ['dnabert'], hfBase: base, githubBase: base, knownFiles })).rejects.toThrow(IntegrityError);
    const ok = await downloadModels({ modelsDir: dir, esmSize: '8M', only: ['dnabert'], hfBase: base, githubBase: base, knownFiles: { 'DNABERT-S/tokenizer.json': { sha256: sha(Buffer.from('{"model": {}}')), source: 'test' } } });
    expect(ok.downloaded).toContain('DNABERT-S/tokenizer.json');
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).files['DNABERT-S/tokenizer.json'].hashSource).toBe('known');
  });
  it('refuses a Git LFS pointer in place of an MLP', async () => {
    publish();
    files.set('/Li-Jing-1997/VirNucPro/raw/main/300_model.pth', { body: Buffer.from('version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 1\n') });
    const dir = mkdtempSync(join(tmpdir(), 'vnp-models-lfs-'));
    await expect(downloadModels({ modelsDir: dir, esmSize: '8M', only: ['mlp'], hfBase: base, githubBase: base, knownFiles: {} })).rejects.toThrow(/Git LFS pointer/);
    expect(existsSync(join(dir, '300_model.pth'))).toBe(false);
  });
});

describe('virnucpro models download when the server cannot be reached', () => {
  it('names the URL and the reason in one line, prints no "(done)", and leaves no folder behind', async () => {
    // A port nothing listens on: one a server had, closed again.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const parent = mkdtempSync(join(tmpdir(), 'vnp-offline-'));
    const modelsDir = join(parent, 'new', 'models');
    const r = runCli(['models', 'download', '--base-url', `http://127.0.0.1:${port}`, '--models-dir', modelsDir, '--only', 'mlp']);
    expect(r.status).toBe(1);
    expect(r.stderr).not.toContain('(done)');
    expect(r.stderr.trim().split('\n')).toEqual([
      `virnucpro: cannot download http://127.0.0.1:${port}/Li-Jing-1997/VirNucPro/raw/main/300_model.pth: connect ECONNREFUSED 127.0.0.1:${port}`,
    ]);
    expect(existsSync(join(parent, 'new'))).toBe(false);
  });

  it('keeps a models folder that existed before', async () => {
    const modelsDir = mkdtempSync(join(tmpdir(), 'vnp-offline-existing-'));
    writeFileSync(join(modelsDir, 'mine.txt'), 'x');
    const r = runCli(['models', 'download', '--base-url', 'http://127.0.0.1:9', '--models-dir', modelsDir]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      'virnucpro: cannot download http://127.0.0.1:9/facebook/esm2_t36_3B_UR50D/resolve/main/config.json: bad port',
    ]);
    expect(readFileSync(join(modelsDir, 'mine.txt'), 'utf8')).toBe('x');
    expect(existsSync(join(modelsDir, 'esm2_t36_3B_UR50D'))).toBe(false);
  });
});

describe('virnucpro models check: what it says when there is nothing to compare', () => {
  const demo = join(fileURLToPath(new URL('../../../test-data/', import.meta.url)), 'demo-models');

  it('a folder without manifest.json (the demo models): complete, but not "0 files checked"; the demo models named as such', () => {
    const r = runCli(['models', 'check', demo]);
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/0 files checked/);
    expect(r.stderr).toMatch(/every model complete, but no file has a recorded size or hash to compare \(no manifest\.json; `virnucpro models download` writes one\); demo models with random weights/);
  });

  it('no folder: says so and how to fill it (the default folder, or the one named), in a command that runs when pasted', () => {
    const missing = join(tmpdir(), 'vnp-no-models-here');
    // The program as this test starts it (node and the script): what the user pastes starts the same program.
    const program = `(node|${process.execPath}) ${bin}`;
    const byDefault = spawnSync(process.execPath, [bin, 'models', 'check'], { encoding: 'utf8', env: { ...process.env, VIRNUCPRO_MODELS_DIR: missing } });
    expect(byDefault.status).toBe(2);
    expect(byDefault.stderr).toMatch(new RegExp(`^virnucpro: ${missing}: no such folder \\(the default models folder\\); \`${program} models download\` fills it, or name the folder to check\n$`));
    const named = runCli(['models', 'check', missing]);
    expect(named.status).toBe(2);
    expect(named.stderr).toMatch(new RegExp(`^virnucpro: ${missing}: no such folder; \`${program} models download --models-dir ${missing}\` fills it, or name the folder to check\n$`));
    // Pasted into a shell (with --help, so that nothing is downloaded): the program starts and knows the command.
    const pasted = /`([^`]+)`/.exec(named.stderr)![1];
    const help = spawnSync('bash', ['-c', `${pasted} --help`], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/models download/);
  });
});

describe('predict without its models', () => {
  it('the download it suggests is a command that runs when pasted', () => {
    const empty = mkdtempSync(join(tmpdir(), 'vnp-empty models '));
    const input = join(empty, 'x.fa');
    writeFileSync(input, '>a\nACGTACGTACGTACGT\n');
    const r = runCli(['predict', input, '--models-dir', empty, '--out-dir', join(empty, 'out')]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^virnucpro: no ESM-2 model: nothing like esm2_\* in .*; run `[^`]+ models download --models-dir '[^']+'` or pass the path explicitly\n$/);
    const pasted = /`([^`]+)`/.exec(r.stderr)![1];
    const help = spawnSync('bash', ['-c', `${pasted} --help`], { encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/models download/);
    rmSync(empty, { recursive: true, force: true });
  });
});
