import type { FastaRecordLike } from './fasta-record.js';
import { pythonFirstWord } from './python-whitespace.js';

/** Biopython's `_clean`: line breaks inside an id or description become spaces. */
function clean(text: string): string {
  return text.replace(/[\r\n]/g, ' ');
}

/**
 * The header text Biopython's FASTA writer uses (`as_fasta` / `FastaWriter`): the description alone
 * when its first word is the id, `id description` when the description is something else, `id` when
 * there is no description.
 */
export function fastaTitle(record: FastaRecordLike): string {
  const id = clean(record.id);
  const description = clean(record.description ?? '');
  if (description !== '' && pythonFirstWord(description) === id) return description;
  if (description !== '') return `${id} ${description}`;
  return id;
}

/**
 * One record as FASTA text. `lineWidth` n ≥ 1 wraps the sequence every n letters (60 = Biopython's
 * `SeqIO.write(…, "fasta")`; an empty sequence then has no sequence line); 0 writes one line (an empty
 * sequence gives an empty line, as Biopython's `FastaWriter(wrap=None)`/"fasta-2line").
 */
export function formatFastaRecord(record: FastaRecordLike, lineWidth = 60): string {
  checkLineWidth(lineWidth);
  const sequence = record.sequence;
  if (sequence.indexOf('\n') !== -1 || sequence.indexOf('\r') !== -1) {
    throw new TypeError(`FASTA record '${record.id}': sequence contains a line break`);
  }
  const header = `>${fastaTitle(record)}\n`;
  if (lineWidth === 0 || sequence.length <= lineWidth) {
    return lineWidth !== 0 && sequence.length === 0 ? header : `${header}${sequence}\n`;
  }
  const lines: string[] = [header];
  for (let i = 0; i < sequence.length; i += lineWidth) lines.push(sequence.slice(i, i + lineWidth), '\n');
  return lines.join('');
}

export function checkLineWidth(lineWidth: number): void {
  if (!Number.isInteger(lineWidth) || lineWidth < 0) {
    throw new RangeError(`lineWidth must be a whole number ≥ 0 (0 = no wrapping), got ${lineWidth}`);
  }
}
