// Writes test-data/packer/lambda-orf-lengths.json: the ESM-2 inputs VirNucPro derives from the lambda
// phage genome (500-bp and 300-bp chunks), as protein lengths. Run from the repo root after building
// fasta-stream:  node tools/bench/packer/lambda-lengths.mjs
import { writeFileSync, mkdirSync } from 'node:fs';
import { readFasta } from '@virnucpro/fasta-stream';
import { orfLengths } from './orf-lengths.mjs';

const input = 'test-data/lambda_virus.fa';
const out = { source: `${input} via tools/bench/packer/lambda-lengths.mjs`, chunk500: [], chunk300: [] };
for await (const record of readFasta(input)) {
  out.chunk500.push(...orfLengths(record.sequence, 500));
  out.chunk300.push(...orfLengths(record.sequence, 300));
}
mkdirSync('test-data/packer', { recursive: true });
writeFileSync('test-data/packer/lambda-orf-lengths.json', JSON.stringify(out) + '\n');
console.log(`500-bp chunks: ${out.chunk500.length} proteins; 300-bp chunks: ${out.chunk300.length} proteins`);
