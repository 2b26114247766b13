// A multi-record input for the sharding tests, cut from the demo genome (phage lambda): records of very
// different lengths (so balancing by bases matters), one with no stop-free frame (no prediction rows),
// and ids that contain `_chunk_` (the merge must still find each record's rows).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { testData } from './cli-harness.js';

const LENGTHS = [4000, 350, 9000, 120, 2500, 700, 6000, 1500, 501, 3200, 800, 260];

export function writeMultiRecordInput(path: string): void {
  const genome = readFileSync(join(testData, 'lambda_virus.fa'), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('>'))
    .join('');
  let at = 0;
  let text = '';
  LENGTHS.forEach((length, i) => {
    const id = i === 4 ? `rec${i + 1}_chunk_7` : `rec${i + 1}`;
    text += `>${id} part ${i + 1} of lambda\n${genome.slice(at, at + length)}\n`;
    at += length;
  });
  text += `>stops_only\n${'TAA'.repeat(200)}\n`;
  writeFileSync(path, text);
}
