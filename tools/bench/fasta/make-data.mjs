// Builds the benchmark inputs under a scratch folder (never in git):
//   node tools/bench/fasta/make-data.mjs <genome.fa> <outDir>
// genome.fa: a real bacterial genome, e.g. E. coli 536 from Debian's bowtie-examples:
//   apt-get download bowtie-examples && dpkg-deb -x bowtie-examples_*.deb ex &&
//   zcat ex/usr/share/doc/bowtie/examples/genomes/NC_008253.fna.gz > ecoli.fa
// Writes genomes.fa (~300 MB: 60 copies of the genome as separate records, 70-column lines),
// reads.fa (1.5 M reads of 150 bp sampled from the genome, one line each), reads.fa.gz (gzip -1), and the same
// reads as FASTQ: reads.fq (4-line records, Illumina-like quality strings) and reads.fq.gz (gzip -1).
import { createWriteStream, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

const [genomePath, outDir] = process.argv.slice(2);
if (!genomePath || !outDir) {
  console.error('usage: node tools/bench/fasta/make-data.mjs <genome.fa> <outDir>');
  process.exit(2);
}
const text = readFileSync(genomePath, 'latin1');
const genome = text.slice(text.indexOf('\n') + 1).replace(/\s+/g, '');

async function write(path, produce) {
  const out = createWriteStream(path);
  for (const piece of produce()) if (!out.write(piece)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

await write(join(outDir, 'genomes.fa'), function* () {
  for (let copy = 0; copy < 60; copy++) {
    yield `>genome_${copy} Escherichia coli 536 copy ${copy}\n`;
    const lines = [];
    for (let i = 0; i < genome.length; i += 70) lines.push(genome.slice(i, i + 70));
    yield lines.join('\n') + '\n';
  }
});

/** The same 1.5 M reads each time (fixed seed), one text per record from `format(name, sequence, index)`. */
function* sampledReads(format) {
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296);
  let block = '';
  for (let i = 0; i < 1_500_000; i++) {
    const start = Math.floor(random() * (genome.length - 150));
    block += format(`read_${i} pos=${start}`, genome.slice(start, start + 150), i);
    if (block.length > 1 << 20) {
      yield block;
      block = '';
    }
  }
  yield block;
}
// Quality strings: Illumina-like, high then falling towards the read's end; a few variants so they are not all one string.
const qualities = Array.from({ length: 16 }, (_, v) => Array.from({ length: 150 }, (_, k) => String.fromCharCode(33 + Math.max(2, 38 - ((k * (v + 3)) >> 6)))).join(''));
await write(join(outDir, 'reads.fa'), () => sampledReads((name, sequence) => `>${name}\n${sequence}\n`));
await write(join(outDir, 'reads.fq'), () => sampledReads((name, sequence, i) => `@${name}\n${sequence}\n+\n${qualities[i & 15]}\n`));
execFileSync('gzip', ['-1', '-k', '-f', join(outDir, 'reads.fa')]);
execFileSync('gzip', ['-1', '-k', '-f', join(outDir, 'reads.fq')]);
console.log(execFileSync('ls', ['-la', outDir]).toString());
