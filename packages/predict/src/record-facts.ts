import type { SequenceRecord } from '@virnucpro/sixframe';

/** Characters of `sequence` that are N or n (unknown bases). */
export function nBaseCount(sequence: string): number {
  let n = 0;
  for (let i = sequence.indexOf('N'); i !== -1; i = sequence.indexOf('N', i + 1)) n++;
  for (let i = sequence.indexOf('n'); i !== -1; i = sequence.indexOf('n', i + 1)) n++;
  return n;
}

/** What the prediction files say about a record beyond its calls (`fraction_n` in sequence_summary.tsv). */
export function recordFacts(record: SequenceRecord): { nBases: number } {
  return { nBases: nBaseCount(record.sequence) };
}
