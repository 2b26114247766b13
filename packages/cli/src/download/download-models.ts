import { existsSync, rmSync, rmdirSync, statSync } from 'node:fs';
import { makeDirectorySync } from '@virnucpro/atomic-file';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ProgressReporter } from '../progress/progress-reporter.js';
import { downloadFile, IntegrityError, NotFoundError, sha256OfFile } from './download-file.js';
import { LocalManifest, type ManifestEntry } from './local-manifest.js';
import {
  DEFAULT_GITHUB_BASE, DEFAULT_HF_BASE, DNABERT_DIR, DNABERT_REPO, ESM_REPOS, KNOWN_FILES, MLP_FILES, VIRNUCPRO_REPO,
  esmDirName, githubFileUrl, hfFileUrl, type EsmSize,
} from './model-catalog.js';
import { findHfSnapshot } from './hf-cache.js';
import { updateModelsIndex } from './models-index.js';

export interface DownloadModelsOptions {
  modelsDir: string;
  esmSize: EsmSize;
  /** Which groups to fetch (default all three). */
  only?: ('esm' | 'dnabert' | 'mlp')[];
  hfBase?: string;
  githubBase?: string;
  /** Re-hash files already present instead of trusting size + manifest. */
  verify?: boolean;
  /** Ignore the built-in KNOWN_FILES hashes (e.g. upstream replaced a file). */
  ignoreKnownHashes?: boolean;
  knownFiles?: typeof KNOWN_FILES;
  /**
   * A Hugging Face hub cache (hf-cache.ts) to take ESM-2 and DNABERT-S from when it holds a complete snapshot and
   * the models folder has no copy yet: models.json then points at the snapshot and nothing is downloaded.
   */
  hfCache?: string;
  reporter?: ProgressReporter;
  fetchImpl?: typeof fetch;
  log?: (line: string) => void;
}

interface PlannedFile {
  rel: string; // path inside the models folder
  url: string;
}

export interface DownloadModelsResult {
  downloaded: string[];
  alreadyPresent: string[];
  recordedHashes: string[];
  /** Repositories taken from the Hugging Face cache instead of downloaded. */
  fromHfCache: string[];
}

/**
 * Fetches ESM-2, DNABERT-S and the VirNucPro MLPs into `modelsDir` (see docs/usage.md "Models").
 * Weights: model.safetensors, else its sharded index, else pytorch_model.bin, else its sharded index —
 * whichever the repository has.
 */
export async function downloadModels(options: DownloadModelsOptions): Promise<DownloadModelsResult> {
  // Folders this call creates: removed again if it fails while they are still empty (nothing to resume).
  const created: string[] = [];
  const makeDir = (dir: string) => {
    const first = makeDirectorySync(dir);
    if (first) for (let d = dir; ; d = dirname(d)) {
      created.push(d);
      if (d === first || dirname(d) === d) break;
    }
  };
  makeDir(options.modelsDir);
  try {
    return await downloadInto(options, makeDir);
  } catch (err) {
    // Deepest first; a folder that holds anything (a partial download to resume, other files) stays.
    for (const dir of [...created].sort((a, b) => b.length - a.length)) {
      try {
        rmdirSync(dir);
      } catch {
        // not empty, or already gone
      }
    }
    throw err;
  }
}

async function downloadInto(options: DownloadModelsOptions, makeDir: (dir: string) => void): Promise<DownloadModelsResult> {
  const hfBase = options.hfBase ?? DEFAULT_HF_BASE;
  const githubBase = options.githubBase ?? DEFAULT_GITHUB_BASE;
  const known = options.ignoreKnownHashes ? {} : options.knownFiles ?? KNOWN_FILES;
  const only = new Set(options.only ?? ['esm', 'dnabert', 'mlp']);
  const log = options.log ?? (() => {});
  const manifest = new LocalManifest(options.modelsDir);
  const result: DownloadModelsResult = { downloaded: [], alreadyPresent: [], recordedHashes: [], fromHfCache: [] };

  /** The cached snapshot of `repo` to use instead of downloading into `dir`, if there is one and no copy yet. */
  const cachedSnapshot = (repo: string, dir: string, files: string[] = []): string | undefined => {
    if (!options.hfCache || existsSync(join(options.modelsDir, dir, 'config.json'))) return undefined;
    const snapshot = findHfSnapshot(options.hfCache, repo, { files });
    if (snapshot) {
      result.fromHfCache.push(repo);
      log(`${repo}: using the copy in the Hugging Face cache, ${snapshot} (nothing downloaded; --no-hf-cache downloads it)`);
    }
    return snapshot;
  };

  const fetchOne = async (file: PlannedFile): Promise<void> => {
    const dest = join(options.modelsDir, file.rel);
    makeDir(dirname(dest));
    const recorded = manifest.files[file.rel];
    if (existsSync(dest) && recorded && statSync(dest).size === recorded.size) {
      if (options.verify) {
        const sha = await sha256OfFile(dest);
        if (sha !== recorded.sha256) throw new IntegrityError(`${dest}: sha256 ${sha} differs from the recorded ${recorded.sha256}; delete it and download again`);
      }
      result.alreadyPresent.push(file.rel);
      return;
    }
    const expected = known[file.rel];
    const stage = options.reporter?.stage(file.rel, { total: expected?.size, unit: 'bytes' });
    let totalSet = false;
    const r = await downloadFile({
      url: file.url,
      dest,
      expected: expected ? { size: expected.size, sha256: expected.sha256 } : undefined,
      fetchImpl: options.fetchImpl,
      onBytes: (n, total) => {
        if (!totalSet && total !== undefined) {
          stage?.setTotal(total);
          totalSet = true;
        }
        stage?.tick(n);
      },
    }).then(
      (done) => {
        stage?.finish();
        return done;
      },
      (err: unknown) => {
        stage?.abort(); // no "(done)" for a file that failed; the error says why
        throw err;
      },
    );
    const hashSource: ManifestEntry['hashSource'] = expected?.sha256 ? 'known' : r.remote.sha256 ? 'server' : 'recorded-on-first-download';
    if (hashSource === 'recorded-on-first-download') {
      result.recordedHashes.push(file.rel);
      log(`${file.rel}: no published sha256 known; recorded ${r.sha256} in manifest.json (later runs check against it)`);
    }
    manifest.files[file.rel] = { url: file.url, size: r.size, sha256: r.sha256, hashSource, downloadedAt: new Date().toISOString() };
    manifest.save();
    result.downloaded.push(file.rel);
  };

  /** Downloads the first weight layout the repository has. */
  const fetchWeights = async (repo: string, dir: string): Promise<void> => {
    for (const single of ['model.safetensors', 'pytorch_model.bin']) {
      try {
        await fetchOne({ rel: `${dir}/${single}`, url: hfFileUrl(hfBase, repo, single) });
        return;
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
      }
      const indexName = `${single}.index.json`;
      try {
        await fetchOne({ rel: `${dir}/${indexName}`, url: hfFileUrl(hfBase, repo, indexName) });
      } catch (err) {
        if (!(err instanceof NotFoundError)) throw err;
        continue;
      }
      const index = JSON.parse(await readFile(join(options.modelsDir, dir, indexName), 'utf8')) as { weight_map: Record<string, string> };
      for (const shard of [...new Set(Object.values(index.weight_map))].sort()) {
        await fetchOne({ rel: `${dir}/${shard}`, url: hfFileUrl(hfBase, repo, shard) });
      }
      return;
    }
    throw new Error(`${repo}: found neither model.safetensors nor pytorch_model.bin (nor sharded indexes) at ${hfBase}`);
  };

  if (only.has('esm')) {
    const repo = ESM_REPOS[options.esmSize];
    const dir = esmDirName(options.esmSize);
    const cached = cachedSnapshot(repo, dir);
    if (cached) updateModelsIndex(options.modelsDir, { esm: cached });
    else {
      await fetchOne({ rel: `${dir}/config.json`, url: hfFileUrl(hfBase, repo, 'config.json') });
      await fetchWeights(repo, dir);
      updateModelsIndex(options.modelsDir, { esm: dir });
    }
  }
  const dnabertCached = only.has('dnabert') ? cachedSnapshot(DNABERT_REPO, DNABERT_DIR, ['tokenizer.json']) : undefined;
  if (dnabertCached) updateModelsIndex(options.modelsDir, { dnabert: dnabertCached });
  else if (only.has('dnabert')) {
    for (const f of ['config.json', 'tokenizer.json']) await fetchOne({ rel: `${DNABERT_DIR}/${f}`, url: hfFileUrl(hfBase, DNABERT_REPO, f) });
    await fetchWeights(DNABERT_REPO, DNABERT_DIR);
    updateModelsIndex(options.modelsDir, { dnabert: DNABERT_DIR });
  }
  if (only.has('mlp')) {
    for (const file of Object.values(MLP_FILES)) {
      await fetchOne({ rel: file, url: githubFileUrl(githubBase, VIRNUCPRO_REPO, file) });
      const head = (await readFile(join(options.modelsDir, file))).subarray(0, 64).toString('latin1');
      if (head.startsWith('version https://git-lfs')) {
        rmSync(join(options.modelsDir, file), { force: true });
        delete manifest.files[file];
        manifest.save();
        throw new IntegrityError(`${file}: the server returned a Git LFS pointer instead of the model; use a mirror that serves LFS content (--github-base-url)`);
      }
    }
    updateModelsIndex(options.modelsDir, { mlp: { '300': MLP_FILES[300], '500': MLP_FILES[500] } });
  }
  return result;
}
