// The inputs and the two ways of grouping them that SpilledChunkMaxima's tests compare.
import { ChunkMaxima, type ChunkConsensus } from '../src/consensus.js';
import { SpilledChunkMaxima } from '../src/spilled-chunk-maxima.js';

/** Frame ids of `keys` chunks in a random order, each chunk's frames scattered (so one key lands in several runs). */
export function frames(keys: number, seed: number): { id: string; score1: number; score2: number }[] {
  let state = seed;
  const rand = () => ((state = (state * 48271) % 2147483647) / 2147483647);
  const names = ['seq', 'séq', 'sé𝔮', 'SEQ', 'seq_10', 'seq_2'];
  const out: { id: string; score1: number; score2: number }[] = [];
  for (let frame = 0; frame < 3 * keys; frame++) {
    const k = Math.floor(rand() * keys);
    const p = rand() < 0.05 ? NaN : Math.fround(rand());
    out.push({ id: `${names[k % names.length]}${k}_chunk_${1 + (k % 5)}${frame % 2 ? 'F1' : 'R2'}`, score1: Math.fround(1 - p), score2: p });
  }
  return out;
}

export async function spilled(rows: ReturnType<typeof frames>, dir: string, runChunks: number, fanIn: number) {
  const maxima = new SpilledChunkMaxima(dir, 'original', runChunks, fanIn);
  for (const r of rows) {
    maxima.add(r.id, r.score1, r.score2);
    if (maxima.full) await maxima.spill();
  }
  const groups: ChunkConsensus[] = [];
  for await (const batch of maxima.sortedBatches()) groups.push(...batch);
  return { groups, maxima };
}

export function inMemory(rows: ReturnType<typeof frames>): ChunkConsensus[] {
  const all = new ChunkMaxima('original');
  for (const r of rows) all.add(r.id, r.score1, r.score2);
  return [...all.sortedGroups()];
}
