import { basename, join } from 'node:path';

/**
 * The stem VirNucPro derives output names from: the input file name up to its first `.fa`
 * (`prediction.py`: `path.split('.fa')[0]`; here applied to the file name only, so outputs go to the chosen
 * directory). The original reads no gzip, so a compressed file is named as the original would name it once
 * decompressed: its `.gz`/`.bgz` suffix goes first. `reads.fasta.gz` → `reads`, `x.fa` → `x`, `reads.fna` (no
 * `.fa`) → `reads.fna`, `NC_008253.fna.gz` → `NC_008253.fna` (not `NC_008253.fna.gz`).
 */
export function inputStem(inputPath: string): string {
  return basename(inputPath).replace(/\.(gz|bgz|bgzf)$/i, '').split('.fa')[0];
}

/** The three files the chunking + translation stages write, named as the original tool names them. */
export interface PrepOutputPaths {
  /** `{stem}_chunked{L}.fa`: the chunks, 60-column lines. */
  chunked: string;
  /** `{stem}_identified_nucleotide.fa`: nucleotide slice of every kept frame, one line each. */
  nucleotide: string;
  /** `{stem}_identified_protein.faa`: protein of every kept frame, one line each. */
  protein: string;
}

export function prepOutputPaths(outDir: string, stem: string, chunkSize: number): PrepOutputPaths {
  return {
    chunked: join(outDir, `${stem}_chunked${chunkSize}.fa`),
    nucleotide: join(outDir, `${stem}_identified_nucleotide.fa`),
    protein: join(outDir, `${stem}_identified_protein.faa`),
  };
}
