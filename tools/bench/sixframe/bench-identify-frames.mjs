#!/usr/bin/env node
// identifyFrames alone (the six-frame selection of every chunk, on the main thread of `predict`), over the records of
// a FASTA file of reads, three passes: µs a read, with the frames and characters made as a check that two builds agree.
// A/B of two builds (e.g. main and a change, each bundled from its own worktree):
//   npx esbuild packages/sixframe/src/index.ts --bundle --format=esm --platform=node --outfile=/tmp/sixframe-new.mjs
//   node tools/bench/sixframe/bench-identify-frames.mjs /tmp/sixframe-new.mjs /tmp/host-pipeline-reads-1000000.fa
// (the reads: tools/bench/predict/make_reads.py, as tools/bench/host-pipeline makes them).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [modulePath, fasta] = process.argv.slice(2);
if (!modulePath || !fasta) throw new Error('usage: bench-identify-frames.mjs SIXFRAME_MODULE READS.fa');
const { identifyFrames } = await import(pathToFileURL(resolve(modulePath)).href);
// One read a record (make_reads.py writes each sequence on one line).
const sequences = readFileSync(fasta, 'utf8').split('\n').filter((line) => line !== '' && line[0] !== '>');
let frames = 0;
let chars = 0;
const passes = 3;
const start = performance.now();
for (let pass = 0; pass < passes; pass++) {
  for (const sequence of sequences) {
    for (const frame of identifyFrames('r', sequence)) {
      frames++;
      chars += frame.protein.length + frame.nucleotide.length;
    }
  }
}
const ms = performance.now() - start;
console.log(JSON.stringify({ reads: sequences.length, passes, usPerRead: +((ms * 1000) / sequences.length / passes).toFixed(2), frames, chars }));
