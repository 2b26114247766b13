/**
 * One record as Biopython's `SeqIO.write(record, handle, 'fasta')` writes it when the description is empty
 * (VirNucPro's chunker sets `description = ""`): `>{id}\n`, then the sequence in lines of 60 characters, each
 * ending in `\n`; an empty sequence writes no sequence line at all.
 */
export function formatWrappedFasta(id: string, sequence: string, lineWidth = 60): string {
  let out = `>${id}\n`;
  for (let i = 0; i < sequence.length; i += lineWidth) out += sequence.slice(i, i + lineWidth) + '\n';
  return out;
}

/** One record as VirNucPro's translation writer writes it: `>{id}\n{sequence}\n` (f-string, no wrapping). */
export function formatSingleLineFasta(id: string, sequence: string): string {
  return `>${id}\n${sequence}\n`;
}
