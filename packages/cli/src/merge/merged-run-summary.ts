import type { RunSummary } from '../progress/run-summary.js';
import { formatShardSpec } from '../sharding/shard-spec.js';
import type { ShardSet } from './shard-set.js';

/** run_summary.json of a merge: the shards' counters added up, wall time from the first start to the last finish. */
export interface MergedRunSummary extends Omit<RunSummary, 'shard' | 'workerStats'> {
  merged: {
    inputFingerprint: string;
    /** Each shard as it ran: folder, part, what it did and how long it took. */
    shards: { shard: string; dir: string; sequences: number; chunks: number; frames: number; bases: number; startedAt: string; finishedAt: string; totalSeconds: number; resumedFrames: number; resumedSequences: number }[];
  };
}

export function mergedRunSummary(set: ShardSet): MergedRunSummary {
  const runs = set.shards.map((s) => s.summary);
  const first = runs[0];
  const sum = (of: (r: RunSummary) => number) => runs.reduce((total, r) => total + of(r), 0);
  const startedAt = runs.map((r) => r.startedAt).sort()[0];
  const finishedAt = runs.map((r) => r.finishedAt).sort().at(-1)!;
  const totalSeconds = (Date.parse(finishedAt) - Date.parse(startedAt)) / 1000;
  const per = (x: number) => (totalSeconds > 0 ? x / totalSeconds : 0);
  const stageSeconds: Record<string, number> = {};
  for (const r of runs) for (const [stage, seconds] of Object.entries(r.stageSeconds)) stageSeconds[stage] = (stageSeconds[stage] ?? 0) + seconds;
  const batches = sum((r) => r.batches);
  const tokens = { esm: sum((r) => r.tokens.esm), dnabert: sum((r) => r.tokens.dnabert) };
  const sequences = sum((r) => r.sequences);
  const frames = sum((r) => r.frames);
  return {
    version: 1,
    tool: 'virnucpro-ts',
    startedAt,
    finishedAt,
    status: 'complete',
    input: first.input,
    chunkLength: first.chunkLength,
    ...(first.regions ? { regions: first.regions } : {}),
    models: first.models,
    // The demo models (random weights) in any shard: the merged calls mean nothing either (report.html's banner).
    ...(runs.some((r) => r.demoModels) ? { demoModels: true as const } : {}),
    backend: first.backend,
    precision: first.precision,
    ...(first.cuda ? { cuda: first.cuda } : {}),
    devices: [...new Set(runs.flatMap((r) => r.devices))],
    workers: first.workers,
    sequences,
    ...(first.minLength !== undefined ? { minLength: first.minLength, skippedSequences: sum((r) => r.skippedSequences ?? 0) } : {}),
    chunks: sum((r) => r.chunks),
    frames,
    resumedFrames: sum(resumedFrames),
    resumedSequences: sum(resumedFrames),
    tokens,
    batches,
    tokenBudget: first.tokenBudget,
    // Each shard's efficiency weighted by its batches = Σ tokens in batches / Σ (batches · budget).
    packingEfficiency: batches ? sum((r) => r.packingEfficiency * r.batches) / batches : 0,
    oomSplits: sum((r) => r.oomSplits),
    fp32Recomputes: sum((r) => r.fp32Recomputes),
    ...(first.refinement ? { refinement: { ...first.refinement, frames: sum((r) => r.refinement?.frames ?? 0) } } : {}),
    // The largest shard's (each shard is its own process); 0 for shards written before the field existed.
    peakRssBytes: Math.max(0, ...runs.map((r) => r.peakRssBytes ?? 0)),
    // Summed over shards: compute time spent, not wall time (shards run side by side).
    stageSeconds,
    totalSeconds,
    sequencesPerSecond: per(sequences),
    framesPerSecond: per(frames),
    tokensPerSecond: { esm: per(tokens.esm), dnabert: per(tokens.dnabert) },
    merged: {
      inputFingerprint: first.shard.inputFingerprint,
      shards: set.shards.map(({ dir, summary: r }) => ({
        shard: formatShardSpec(r.shard),
        dir,
        sequences: r.sequences,
        chunks: r.chunks,
        frames: r.frames,
        bases: r.shard.bases,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        totalSeconds: r.totalSeconds,
        resumedFrames: resumedFrames(r),
        resumedSequences: resumedFrames(r),
      })),
    },
  };
}

/** A shard's restored frames: resumedFrames, or resumedSequences in a summary written before that name. */
function resumedFrames(run: RunSummary): number {
  return (run as Partial<RunSummary>).resumedFrames ?? run.resumedSequences;
}
