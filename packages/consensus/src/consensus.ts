// prediction_results_highestscore.csv — the original's per-chunk consensus (prediction.py):
//   df = pd.read_csv('prediction_results.txt', sep='\t')
//   df['Modified_ID'] = df['Sequence_ID'].str[:-2]                 # drop the frame suffix (F1..R3)
//   df.groupby('Modified_ID').apply(lambda g: Is_Virus = g.score2.max() >= g.score1.max())
//   .to_csv(..., sep='\t', index=False)
// So: one row per CHUNK ({seq}_chunk_{k}), keys sorted like Python sorts strings (code point order, so
// "chunk_10" < "chunk_2"), True when the best virus score of any frame is at least the best "others"
// score (ties → True), printed True/False. Comparing float32 maxima gives the same answers as pandas'
// float64 re-parse of the printed shortest strings: distinct float32 values print to distinct strings that
// keep their order. pandas' max skips NaN; a group of only NaN scores compares False.

import { formatFloat32 } from './format-float32.js';

export const CONSENSUS_FILE = 'prediction_results_highestscore.csv';
export const CONSENSUS_HEADER = 'Modified_ID\tIs_Virus';

/**
 * 'original': VirNucPro's `Sequence_ID.str[:-2]` (last two characters dropped, whatever they are).
 * 'frame-suffix': the broadinstitute refactor's rule: drop them only if the id ends in F1-F3/R1-R3.
 */
export type ConsensusKeyRule = 'original' | 'frame-suffix';

const FRAME_SUFFIX = /[FR][123]$/;

/** The consensus group key of a frame id (Python slicing: the last two code points). */
export function consensusKey(id: string, rule: ConsensusKeyRule = 'original'): string {
  if (rule === 'frame-suffix' && !FRAME_SUFFIX.test(id)) return id;
  return dropLastCodePoints(id, 2);
}

function dropLastCodePoints(s: string, count: number): string {
  let end = s.length;
  for (let i = 0; i < count && end > 0; i++) {
    end--;
    const c = s.charCodeAt(end);
    if (c >= 0xdc00 && c <= 0xdfff && end > 0) {
      const h = s.charCodeAt(end - 1);
      if (h >= 0xd800 && h <= 0xdbff) end--;
    }
  }
  return s.slice(0, end);
}

/** Python's string order (by code point); JS `<` compares UTF-16 units, which differs past U+FFFF. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800-DFFF, i.e. code points ≥ U+10000) must sort after U+E000-FFFF.
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit <= 0xdfff ? unit + 0x2000 : unit - 0x800;
}

export interface ChunkConsensus {
  key: string;
  isVirus: boolean;
  /** Max score1 (others) over the chunk's frames; NaN when all were NaN. */
  maxScore1: number;
  /** Max score2 (virus) over the chunk's frames. */
  maxScore2: number;
  /** Number of frame rows in the group. */
  frames: number;
}

/**
 * Running per-chunk maxima. Memory grows with the number of distinct chunks (one Map entry plus three
 * typed-array slots each, ~100 bytes with the key string), not with the number of frames.
 */
export class ChunkMaxima {
  private readonly index = new Map<string, number>();
  private keys: string[] = [];
  private max1 = new Float32Array(1024);
  private max2 = new Float32Array(1024);
  private frames = new Uint32Array(1024);

  constructor(private readonly rule: ConsensusKeyRule = 'original') {}

  get size(): number {
    return this.keys.length;
  }

  add(id: string, score1: number, score2: number): void {
    const key = consensusKey(id, this.rule);
    let slot = this.index.get(key);
    if (slot === undefined) {
      slot = this.keys.length;
      if (slot === this.max1.length) this.grow();
      this.index.set(key, slot);
      this.keys.push(key);
      this.max1[slot] = NaN;
      this.max2[slot] = NaN;
    }
    this.max1[slot] = nanMax(this.max1[slot], score1);
    this.max2[slot] = nanMax(this.max2[slot], score2);
    this.frames[slot]++;
  }

  private grow(): void {
    const size = this.max1.length * 2;
    const grow = <T extends Float32Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.max1 = grow(this.max1, (n) => new Float32Array(n));
    this.max2 = grow(this.max2, (n) => new Float32Array(n));
    this.frames = grow(this.frames, (n) => new Uint32Array(n));
  }

  /** Groups in first-appearance order. */
  *groups(): IterableIterator<ChunkConsensus> {
    for (let i = 0; i < this.keys.length; i++) yield this.group(i);
  }

  /** Groups sorted by key as pandas' groupby does. */
  sorted(): ChunkConsensus[] {
    return [...this.sortedGroups()];
  }

  /** Groups sorted by key, made one at a time (only the slot order is sorted: 4 bytes a group, not an object). */
  *sortedGroups(): IterableIterator<ChunkConsensus> {
    const order = new Uint32Array(this.keys.length);
    for (let i = 0; i < order.length; i++) order[i] = i;
    order.sort((a, b) => compareCodePoints(this.keys[a], this.keys[b]));
    for (const i of order) yield this.group(i);
  }

  private group(i: number): ChunkConsensus {
    const maxScore1 = this.max1[i];
    const maxScore2 = this.max2[i];
    return { key: this.keys[i], isVirus: maxScore2 >= maxScore1, maxScore1, maxScore2, frames: this.frames[i] };
  }
}

/** The larger of two scores, skipping NaN as pandas' max does (NaN only when both are). */
export function nanMax(current: number, value: number): number {
  if (Number.isNaN(value)) return current;
  return Number.isNaN(current) || value > current ? value : current;
}

export interface ConsensusFormatOptions {
  /** Append max_score_0 / max_score_1 columns (the broadinstitute refactor's extra columns). */
  scoreColumns?: boolean;
}

/** The csv's header line, with its line break. */
export function consensusHeaderLine(options: ConsensusFormatOptions = {}): string {
  return options.scoreColumns ? `${CONSENSUS_HEADER}\tmax_score_0\tmax_score_1\n` : `${CONSENSUS_HEADER}\n`;
}

/** One group's csv line, with its line break. */
export function consensusLine(g: ChunkConsensus, options: ConsensusFormatOptions = {}): string {
  const flag = g.isVirus ? 'True' : 'False';
  return options.scoreColumns ? `${g.key}\t${flag}\t${formatFloat32(g.maxScore1)}\t${formatFloat32(g.maxScore2)}\n` : `${g.key}\t${flag}\n`;
}

/** The csv text (tab-separated) for sorted groups. */
export function formatConsensus(groups: Iterable<ChunkConsensus>, options: ConsensusFormatOptions = {}): string {
  const parts = [consensusHeaderLine(options)];
  for (const g of groups) parts.push(consensusLine(g, options));
  return parts.join('');
}

/** Pure convenience: the consensus csv text for a list of prediction rows. */
export function consensusFromRows(
  rows: Iterable<{ id: string; score1: number; score2: number }>,
  options: ConsensusFormatOptions & { keyRule?: ConsensusKeyRule } = {},
): string {
  const maxima = new ChunkMaxima(options.keyRule);
  for (const r of rows) maxima.add(r.id, r.score1, r.score2);
  return formatConsensus(maxima.sorted(), options);
}
