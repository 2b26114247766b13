import { readdir, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { makeDirectory, OutputDirNotEmptyError } from '@virnucpro/atomic-file';
import { CheckpointMismatchError } from './errors.js';
import { describeIdentityDifferences } from './identity-diff.js';
import { canonicalJson, sha256File } from './fingerprint.js';
import { MANIFEST_FILE, newManifest, readManifest, writeManifest, type Manifest, type ShardRecord } from './manifest.js';
import { RestoredShards } from './restored-shards.js';
import { PendingRows } from './pending-rows.js';
import { readShardIndex, writeShard, type EmbeddingRecord } from './shard-file.js';

export interface CheckpointOptions {
  /** Directory holding manifest.json and the shard files (e.g. `<output>/.checkpoints`). */
  dir: string;
  /** Identity of the model (JSON-able: name, weights hash, dtype…); resume refuses another one. */
  model: unknown;
  /**
   * Fingerprint of the input (see fingerprintFiles); resume refuses another input. A fresh run that starts before its
   * input is read through gives a promise: results are written as shards at once, but no manifest (the checkpoint's
   * identity) until the fingerprint is known, so a run that stops before then leaves nothing a resume trusts (its
   * unlisted shards are removed there, as a crash's are). A resume waits for it.
   */
  inputFingerprint: string | Promise<string>;
  /** Vector length, if known; checked against a resumed manifest, else taken from the first record. */
  dim?: number;
  /** Continue from verified shards in `dir`. */
  resume?: boolean;
  /** Without resume: discard an existing checkpoint instead of refusing to start. */
  force?: boolean;
  /** Write a shard once this many new results are pending. Default 10 000. */
  checkpointEvery?: number;
  /** …or once the oldest pending result is this old. Default 300 000 ms. */
  checkpointIntervalMs?: number;
}

export interface ResumeReport {
  verifiedShards: number;
  restoredItems: number;
  /** Shards listed in the manifest that failed verification; their items are recomputed. */
  droppedShards: { file: string; reason: string }[];
  /** Files found in the directory that the manifest does not list (removed). */
  strayFiles: string[];
}

const SHARD_PATTERN = /^shard-(\d{6,})\.safetensors$/;

/**
 * An open checkpoint: results restored from verified shards, and an appender that writes new
 * results as atomic shard files, each followed by an atomic manifest update (a crash between
 * the two leaves an unlisted shard, which resume discards).
 */
export class CheckpointSession {
  /** Results waiting for their shard (created with the first, once the vector length is known). */
  private pending: PendingRows | null = null;
  private oldestPendingAt = 0;
  private writing: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private timer: NodeJS.Timeout | null = null;
  private nextShard: number;
  private closed = false;
  /** The manifest is on disk, with the input's fingerprint: from here on the shards are a checkpoint a resume trusts. */
  private identified = false;
  /** Resolves once `identified` (rejects if the fingerprint never comes). */
  private readonly identity: Promise<void>;
  shardsWritten = 0;

  private constructor(
    readonly dir: string,
    private readonly manifest: Manifest,
    readonly restored: RestoredShards,
    readonly report: ResumeReport,
    private readonly every: number,
    private readonly intervalMs: number,
    inputFingerprint: string | Promise<string>,
  ) {
    if (typeof inputFingerprint === 'string') {
      this.identified = true; // open() has written the manifest
      this.identity = Promise.resolve();
    } else {
      this.identity = this.identify(inputFingerprint);
      this.identity.catch(() => undefined); // a fingerprint that fails fails the run elsewhere; the manifest just never comes
    }
    this.nextShard = 1 + manifest.shards.reduce((max, s) => Math.max(max, Number(SHARD_PATTERN.exec(s.file)?.[1] ?? 0)), 0);
    if (intervalMs > 0 && Number.isFinite(intervalMs)) {
      this.timer = setInterval(() => {
        if (this.pending && Date.now() - this.oldestPendingAt >= intervalMs) void this.flush().catch(() => undefined);
      }, Math.min(intervalMs, 1000));
      this.timer.unref();
    }
  }

  static async open(options: CheckpointOptions): Promise<CheckpointSession> {
    const { dir } = options;
    await makeDirectory(dir);
    const every = options.checkpointEvery ?? 10_000;
    const intervalMs = options.checkpointIntervalMs ?? 300_000;
    if (!(every >= 1)) throw new RangeError(`checkpointEvery must be ≥ 1, got ${every}`);
    const report: ResumeReport = { verifiedShards: 0, restoredItems: 0, droppedShards: [], strayFiles: [] };
    const entries = await readdir(dir);

    if (!options.resume) {
      if (entries.length > 0 && !options.force) throw new OutputDirNotEmptyError(dir);
      for (const name of entries) if (name === MANIFEST_FILE || SHARD_PATTERN.test(name) || name.endsWith('.tmp')) await rm(join(dir, name), { force: true });
      const known = typeof options.inputFingerprint === 'string' ? options.inputFingerprint : undefined;
      const manifest = newManifest(options.model, known ?? '', options.dim ?? null);
      if (known !== undefined) await writeManifest(dir, manifest); // else identify() writes it once the fingerprint comes
      return new CheckpointSession(dir, manifest, new RestoredShards(dir), report, every, intervalMs, options.inputFingerprint);
    }

    const inputFingerprint = await options.inputFingerprint;
    const previous = await readManifest(dir);
    const manifest = previous ?? newManifest(options.model, inputFingerprint, options.dim ?? null);
    if (previous) {
      // --force would discard what the interrupted run kept: the way out that keeps it comes first.
      const kept = previous.shards.reduce((sum, shard) => sum + shard.count, 0);
      const startOver = `or --force to start over, which discards the ${kept} item(s) kept`;
      if (canonicalJson(previous.model) !== canonicalJson(options.model)) {
        const differences = describeIdentityDifferences(previous.model, options.model).map((line) => `  ${line}`);
        throw new CheckpointMismatchError(
          [`cannot resume: the checkpoint in ${dir} was made with other models; what differs (this run vs the checkpoint):`, ...differences, `resume with the interrupted run's models to keep its work, ${startOver}`].join('\n'),
        );
      }
      if (previous.inputFingerprint !== inputFingerprint) {
        throw new CheckpointMismatchError(
          `cannot resume: the checkpoint in ${dir} was made for a different input (fingerprint ${previous.inputFingerprint}, now ${inputFingerprint}); resume with its input to keep its work, ${startOver}`,
        );
      }
      if (options.dim !== undefined && previous.dim !== null && previous.dim !== options.dim) {
        throw new CheckpointMismatchError(`cannot resume: the checkpoint holds ${previous.dim}-d vectors, this model makes ${options.dim}-d vectors`);
      }
    }

    const verified: ShardRecord[] = [];
    const restoredIndex: number[][] = [];
    for (const shard of manifest.shards) {
      const reason = await verifyShard(dir, shard, manifest.dim);
      if (typeof reason === 'string') {
        report.droppedShards.push({ file: shard.file, reason });
        await rm(join(dir, shard.file), { force: true });
        continue;
      }
      verified.push(shard);
      restoredIndex.push(reason);
    }
    const kept: ShardRecord[] = [];
    const restored = new RestoredShards(dir, kept); // addresses shards by position in `kept`
    verified.forEach((shard, i) => {
      // A duplicate index cannot come from our writer; treat it like corruption of the later shard.
      if (restored.add(kept.length, restoredIndex[i])) kept.push(shard);
      else report.droppedShards.push({ file: shard.file, reason: 'holds items already restored from an earlier shard' });
    });
    manifest.shards = kept;
    manifest.complete = false;
    report.verifiedShards = kept.length;
    report.restoredItems = restored.count;

    const listed = new Set(kept.map((s) => s.file));
    for (const name of await readdir(dir)) {
      if (name === MANIFEST_FILE || listed.has(name)) continue;
      if (SHARD_PATTERN.test(name) || name.endsWith('.tmp')) {
        report.strayFiles.push(name);
        await unlink(join(dir, name)).catch(() => undefined);
      }
    }
    await writeManifest(dir, manifest);
    return new CheckpointSession(dir, manifest, restored, report, every, intervalMs, inputFingerprint);
  }

  /** Writes the manifest once the input's fingerprint is known, listing the shards written until then (in turn with their writes). */
  private async identify(inputFingerprint: Promise<string>): Promise<void> {
    const fingerprint = await inputFingerprint;
    this.writing = this.writing.then(async () => {
      this.manifest.inputFingerprint = fingerprint;
      await writeManifest(this.dir, this.manifest);
      this.identified = true;
    });
    this.writing.catch((error) => (this.failure ??= error));
    await this.writing;
  }

  /** Adds one newly computed result; writes a shard when `checkpointEvery` results are pending. */
  append(record: EmbeddingRecord): Promise<void> | void {
    if (this.failure) throw this.failure;
    if (this.closed) throw new Error('checkpoint session is closed');
    if (this.manifest.dim === null) this.manifest.dim = record.vector.length;
    if (record.vector.length !== this.manifest.dim) {
      throw new Error(`checkpoint: vector for item #${record.index} has length ${record.vector.length}, expected ${this.manifest.dim}`);
    }
    if (!this.pending) {
      this.pending = new PendingRows(this.manifest.dim!, this.every);
      this.oldestPendingAt = Date.now();
    }
    this.pending.push(record.index, record.id, record.vector);
    if (this.pending.count >= this.every || (this.intervalMs > 0 && Date.now() - this.oldestPendingAt >= this.intervalMs)) return this.flush();
  }

  /** Writes all pending results as one shard (resolves when the shard and manifest are durable). */
  flush(): Promise<void> {
    if (this.pending) {
      const rows = this.pending;
      this.pending = null;
      this.writing = this.writing.then(() => this.writeShard(rows));
      this.writing.catch((error) => (this.failure ??= error));
    }
    return this.writing.then(() => {
      if (this.failure) throw this.failure;
    });
  }

  /** Flushes, optionally marks the run complete, and stops the timer (waiting for the manifest, see inputFingerprint). */
  async close(options: { complete?: boolean } = {}): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
    await this.identity;
    this.closed = true;
    if (options.complete) {
      this.manifest.complete = true;
      await writeManifest(this.dir, this.manifest);
    }
  }

  /**
   * Deletes the shards once the run they served is complete and its results are published (they hold every result),
   * keeping the manifest: the run's identity, so that a `--resume` with other settings is still refused before it
   * overwrites those results. Resolves with the bytes freed.
   */
  async dropShards(): Promise<number> {
    if (this.timer) clearInterval(this.timer);
    await this.writing.catch(() => undefined);
    this.closed = true;
    let freed = 0;
    for (const shard of this.manifest.shards) {
      freed += shard.bytes;
      await rm(join(this.dir, shard.file), { force: true });
    }
    this.manifest.shards = [];
    await writeManifest(this.dir, this.manifest);
    return freed;
  }

  /** Items in shards a resume would trust (none before the manifest is written: see inputFingerprint). */
  get itemsStored(): number {
    if (!this.identified) return 0;
    return this.manifest.shards.reduce((sum, s) => sum + s.count, 0);
  }

  private async writeShard(rows: PendingRows): Promise<void> {
    const file = `shard-${String(this.nextShard++).padStart(6, '0')}.safetensors`;
    const path = join(this.dir, file);
    await writeShard(path, rows);
    const [sha256, info] = await Promise.all([sha256File(path), stat(path)]);
    // A loop, not Math.min(...indices): spreading a large shard's indices overflows the call stack.
    let firstIndex = Infinity;
    let lastIndex = -Infinity;
    for (let i = 0; i < rows.count; i++) {
      firstIndex = Math.min(firstIndex, rows.index(i));
      lastIndex = Math.max(lastIndex, rows.index(i));
    }
    this.manifest.shards.push({
      file,
      sha256,
      bytes: info.size,
      count: rows.count,
      firstIndex,
      lastIndex,
      createdAt: new Date().toISOString(),
    });
    if (this.identified) await writeManifest(this.dir, this.manifest); // else listed by identify()
    this.shardsWritten++;
  }
}

/** Opens (or creates, or resumes) a checkpoint directory. */
export function openCheckpoint(options: CheckpointOptions): Promise<CheckpointSession> {
  return CheckpointSession.open(options);
}

/** Returns the shard's indices if it is intact, else why not. */
async function verifyShard(dir: string, shard: ShardRecord, dim: number | null): Promise<number[] | string> {
  const path = join(dir, shard.file);
  try {
    const info = await stat(path);
    if (info.size !== shard.bytes) return `size ${info.size} bytes, manifest says ${shard.bytes} (truncated or overwritten)`;
    const sha256 = await sha256File(path);
    if (sha256 !== shard.sha256) return `sha256 ${sha256.slice(0, 12)}… does not match the manifest's ${shard.sha256.slice(0, 12)}…`;
    const { indices, dim: shardDim } = await readShardIndex(path);
    if (indices.length !== shard.count) return `${indices.length} rows, manifest says ${shard.count}`;
    if (dim !== null && shardDim !== dim) return `vectors of length ${shardDim}, manifest says ${dim}`;
    return indices;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'file is missing' : `unreadable: ${(error as Error).message}`;
  }
}
