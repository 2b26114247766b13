export type { FastaRecord, FastaRecordLike } from './fasta-record.js';
export { FastaFormatError } from './fasta-format-error.js';
export { readFasta, readFastaBatches, type ReadFastaOptions } from './read-fasta.js';
export { fasta$ } from './fasta-observable.js';
export { FastaParser, type FastaParserOptions } from './fasta-parser.js';
export { detectCompression, type Compression } from './compression.js';
export type { FastaSource } from './decoded-chunks.js';
export { fastaTitle, formatFastaRecord } from './fasta-format.js';
export { FastaWriter, writeFasta, type FastaWriterOptions, type WriteFastaOptions } from './fasta-writer.js';
