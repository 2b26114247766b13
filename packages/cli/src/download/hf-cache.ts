// Models a user already has in the Hugging Face hub cache (what `huggingface-cli download`, transformers or
// fair-esm's torch.hub left behind): reused instead of downloading gigabytes again. Layout (huggingface_hub):
//   <cache>/models--<owner>--<name>/refs/<revision>        the commit hash the revision points at
//   <cache>/models--<owner>--<name>/snapshots/<commit>/…   the files (links into ../../blobs/<hash>)
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** The hub cache folder as huggingface_hub finds it: HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub. */
export function hfHubCache(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return resolve(env.HF_HUB_CACHE);
  if (env.HUGGINGFACE_HUB_CACHE) return resolve(env.HUGGINGFACE_HUB_CACHE); // the older name, still read by huggingface_hub
  if (env.HF_HOME) return join(resolve(env.HF_HOME), 'hub');
  const cacheHome = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(cacheHome, 'huggingface', 'hub');
}

/** Files a snapshot must hold to be used, besides its weights (e.g. DNABERT-S's tokenizer.json). */
export interface SnapshotNeeds {
  files?: string[];
}

/**
 * A complete snapshot of `repo` in the cache: the one `refs/<revision>` names (default main), else the newest
 * complete one. Complete = config.json, the listed files, and weights (model.safetensors, pytorch_model.bin, or a
 * sharded index with every shard it lists). Undefined when there is none.
 */
export function findHfSnapshot(cache: string, repo: string, needs: SnapshotNeeds = {}, revision = 'main'): string | undefined {
  const repoDir = join(cache, `models--${repo.replace('/', '--')}`);
  const snapshots = join(repoDir, 'snapshots');
  if (!existsSync(snapshots)) return undefined;
  const complete = (dir: string) => existsSync(dir) && ['config.json', ...(needs.files ?? [])].every((f) => existsSync(join(dir, f))) && hasWeights(dir);
  const ref = join(repoDir, 'refs', revision);
  const pinned = existsSync(ref) ? join(snapshots, readFileSync(ref, 'utf8').trim()) : /^[0-9a-f]{40}$/.test(revision) ? join(snapshots, revision) : undefined;
  if (pinned && complete(pinned)) return pinned;
  const newest = readdirSync(snapshots)
    .map((name) => join(snapshots, name))
    .filter(complete)
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return newest[0];
}

/** Whether a folder holds whole weights: a single file, or an index whose shards are all there. */
export function hasWeights(dir: string): boolean {
  for (const single of ['model.safetensors', 'pytorch_model.bin']) {
    if (existsSync(join(dir, single))) return true; // existsSync follows the link: a dangling one is absent
    const index = join(dir, `${single}.index.json`);
    if (!existsSync(index)) continue;
    try {
      const shards = new Set(Object.values((JSON.parse(readFileSync(index, 'utf8')) as { weight_map: Record<string, string> }).weight_map));
      if ([...shards].every((shard) => existsSync(join(dir, shard)))) return true;
    } catch {
      // an unreadable index is no weights
    }
  }
  return false;
}
