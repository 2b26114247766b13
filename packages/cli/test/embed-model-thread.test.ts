import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bin, runAsync, testData } from './cli-harness.js';

const tinyDir = join(testData, 'dnabert', 'tiny');

/** `virnucpro embed dnabert` with the environment's VIRNUCPRO_EMBED_THREAD set to `thread` (undefined: unset). */
function embed(args: string[], thread: string | undefined) {
  const env = { ...process.env };
  delete env.VIRNUCPRO_EMBED_THREAD;
  if (thread !== undefined) env.VIRNUCPRO_EMBED_THREAD = thread;
  return runAsync(process.execPath, [bin, 'embed', 'dnabert', ...args], { env });
}

// embed dnabert's model runs on a thread of its own on the CPU and cuda backends (embed-thread.ts): the file must be
// the one the model on the main thread writes, and a model that fails to load there must fail as it did here.
describe('virnucpro embed dnabert with its model on a thread', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'embed-model-thread-'));
    // Windows of phage lambda, several batches at this budget, some finishing out of input order.
    const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8').split('\n').filter((l) => !l.startsWith('>')).join('');
    const windows = Array.from({ length: 120 }, (_, i) => genome.slice(i * 157, i * 157 + 60 + ((i * 37) % 140)));
    writeFileSync(join(dir, 'windows.fa'), windows.map((w, i) => `>w${i}\n${w}\n`).join(''));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // wasm stands for the CPU backends (the same code path; tfjs' plain cpu backend takes ~10 s here for nothing more).
  it('on wasm: the bytes of the model on the main thread, and the summary says where it ran', async () => {
    const backend = 'wasm';
    const run = (thread: string | undefined, name: string) =>
      embed(['--model', tinyDir, '--input', join(dir, 'windows.fa'), '--output', join(dir, `${name}.safetensors`), '--backend', backend,
        '--token-budget', '256', '--summary', join(dir, `${name}.json`), '--quiet'], thread);
    const [onThread, onMain] = await Promise.all([run(undefined, `${backend}-thread`), run('0', `${backend}-main`)]);
    for (const r of [onThread, onMain]) {
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
    }
    expect(readFileSync(join(dir, `${backend}-thread.safetensors`)).equals(readFileSync(join(dir, `${backend}-main.safetensors`)))).toBe(true);
    const summaries = [`${backend}-thread`, `${backend}-main`].map((name) => JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8')));
    expect(summaries.map((s) => s.modelOnThread)).toEqual([true, false]);
    expect(summaries[0]).toMatchObject({ sequences: 120, tokens: summaries[1].tokens, batches: summaries[1].batches, backend, oomSplits: 0, model: 'DNABERT-S', dim: 64 });
    expect(summaries[0].batches).toBeGreaterThan(3);
  });

  it('a model that cannot be read on the thread: the one line and exit 2 of the main thread, no output', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    for (const f of ['config.json', 'tokenizer.json']) copyFileSync(join(tinyDir, f), join(broken, f));
    writeFileSync(join(broken, 'model.safetensors'), readFileSync(join(tinyDir, 'model.safetensors')).subarray(0, 1000));
    const args = (name: string) => ['--model', broken, '--input', join(dir, 'windows.fa'), '--output', join(dir, name), '--backend', 'wasm'];
    const [onThread, onMain] = await Promise.all([embed(args('broken-thread.safetensors'), undefined), embed(args('broken-main.safetensors'), '0')]);
    expect(onThread.status).toBe(2);
    expect(onThread.stderr).toBe(onMain.stderr);
    expect(onThread.stderr.trim().split('\n')).toHaveLength(1);
    expect(onThread.stderr).toMatch(/^virnucpro: cannot load the DNABERT-S model .*not a safetensors file/);
    expect(existsSync(join(dir, 'broken-thread.safetensors'))).toBe(false);
  });
});
