export { chunkLayout, type ChunkSpan } from './chunk-layout.js';
export { chunkRecord, type Chunk, type SequenceRecord } from './chunk-record.js';
export { CODON_TABLE } from './codon-table.js';
export { reverseComplement } from './reverse-complement.js';
export { translateFrame, translateSixFrames } from './translate.js';
export { asciiStopFreeProteinLengths, identifyFrames, stopFreeProteinLengths, type Frame } from './identify-frames.js';
export { chunkRecords, sixFrames, type Demand } from './operators.js';
