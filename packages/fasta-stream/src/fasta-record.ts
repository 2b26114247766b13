/**
 * One FASTA record, with Biopython's `SeqIO.parse(handle, "fasta")` meaning:
 * - `description` is the whole header line after '>' with trailing whitespace removed
 *   (Biopython's `record.description`);
 * - `id` is `description` up to the first whitespace (empty for a lone '>');
 * - `sequence` is every following line up to the next '>' line, each right-stripped,
 *   joined, with spaces removed. Letters keep their case.
 */
export interface FastaRecord {
  id: string;
  description: string;
  sequence: string;
}

/** What the writer accepts: a description is optional (Biopython writes `>id` when it is empty). */
export interface FastaRecordLike {
  id: string;
  description?: string;
  sequence: string;
}
