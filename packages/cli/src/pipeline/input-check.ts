import type { FastaRecord } from '@virnucpro/fasta-stream';
import { readFasta, recordHeaderLine } from '@virnucpro/fasta-stream';
import { UsageError } from '../errors.js';
import { asciiNonNucleotideCount, nonNucleotideCount, nonNucleotideExamples } from './nucleotide-codes.js';
import { idHash } from './record-id-set.js';
import { IDS_PER_RUN, SpilledRecordIds } from './spilled-record-ids.js';

/** Share of a record's sequence characters that may lie outside the nucleotide codes before it is refused. */
export const MAX_NON_NUCLEOTIDE_SHARE = 0.1;

/**
 * The per-record input rules of `virnucpro predict`, applied while the input is read (one record at a time; only
 * the ids seen so far are kept, as hashes, for the duplicate check — record-id-set.ts, past a million ids on disk
 * (spilled-record-ids.ts) — until `finish()`, which also finds the duplicates between those runs of ids):
 * - a record more than 10% of whose sequence characters are not nucleotide codes (ACGTUN or IUPAC RYSWKMBDHV,
 *   either case) is not DNA (a protein FASTA has ~35% E, F, I, L, P, Q alone): refused unless `allowNonDna`;
 * - a record id seen before is refused (per-sequence results would merge), naming both header lines.
 * Refusals are UsageErrors (exit 2) naming the file (`name`) and the line of the record's header.
 */
export class InputCheck {
  private seen: SpilledRecordIds | undefined;

  constructor(
    private readonly path: string,
    private readonly name: string,
    private readonly allowNonDna: boolean,
    /** Ids held in memory before their hashes go to disk (IDS_PER_RUN; the tests take a few). */
    idsPerRun = IDS_PER_RUN,
  ) {
    this.seen = new SpilledRecordIds(idsPerRun);
  }

  /**
   * Checks the `number`-th record (1-based): undefined when it passes (almost every record, and then no promise is
   * made: this runs once a record in the counting pass), else a promise that rejects if the record is refused.
   * `ascii`: the sequence's bytes when it is ASCII (ascii-sequence.ts), read instead of the string's characters.
   */
  record(record: FastaRecord, number: number, ascii?: Uint8Array): Promise<void> | undefined {
    const first = this.seen?.addOrFind(record.id, number);
    const sequence = record.sequence;
    const outside = this.allowNonDna ? 0 : ascii ? asciiNonNucleotideCount(ascii, sequence.length) : nonNucleotideCount(sequence);
    const notDna = outside > MAX_NON_NUCLEOTIDE_SHARE * sequence.length;
    if (first === undefined && !notDna) return undefined;
    return this.refuse(record, number, first, notDna ? outside : undefined);
  }

  /** A record whose id's hash was seen before (`first`), or that is not DNA (`outside` non-nucleotide characters). */
  private async refuse(record: FastaRecord, number: number, first: number | undefined, outside: number | undefined): Promise<void> {
    if (first !== undefined && (await idOfRecord(this.path, first)) === record.id) await this.refuseTwice(record.id, first, number);
    if (outside === undefined) return; // a hash collision of two different ids
    const sequence = record.sequence;
    const line = await recordHeaderLine(this.path, number);
    throw new UsageError(
      `${this.name}: ${line ? `line ${line}: ` : ''}record '${record.id}' is not DNA: ${Math.round((100 * outside) / sequence.length)}% of its ` +
        `${sequence.length} characters are not nucleotide codes (${nonNucleotideExamples(sequence)}; a protein FASTA?). ` +
        'VirNucPro reads DNA; pass --allow-non-dna to run it anyway',
    );
  }

  /**
   * Every record was seen: an id twice in two runs of ids is refused now (the pair whose second record comes first),
   * then the ids' hashes go.
   */
  async finish(): Promise<void> {
    const seen = this.seen;
    this.seen = undefined;
    if (!seen) return;
    try {
      const shared = new Set(seen.sharedHashes());
      seen.dispose();
      if (shared.size === 0) return;
      // The records behind the shared hashes, read again: the first of each id, and the first record that repeats one.
      const firstOf = new Map<string, number>();
      let n = 0;
      for await (const record of readFasta(this.path)) {
        n++;
        if (!shared.has(idHash(record.id))) continue;
        const first = firstOf.get(record.id);
        if (first !== undefined) await this.refuseTwice(record.id, first, n);
        firstOf.set(record.id, n);
      }
    } finally {
      seen.dispose();
    }
  }

  /** The count stopped before `finish()`: the ids' scratch files go. */
  dispose(): void {
    this.seen?.dispose();
    this.seen = undefined;
  }

  private async refuseTwice(id: string, first: number, second: number): Promise<never> {
    const [a, b] = await Promise.all([recordHeaderLine(this.path, first), recordHeaderLine(this.path, second)]);
    throw new UsageError(
      `${this.name}: record id '${id}' appears twice (${a && b ? `lines ${a} and ${b}` : `records #${first} and #${second}`}); ` +
        'per-sequence results would be merged: make the ids unique (the id is the header up to the first space)',
    );
  }
}

/** The id of the `number`-th record (1-based): read again, only when a hash says it may be a duplicate. */
async function idOfRecord(path: string, number: number): Promise<string | undefined> {
  let n = 0;
  for await (const record of readFasta(path)) if (++n === number) return record.id;
  return undefined;
}
