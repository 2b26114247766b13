// The counting pass reads each record's bytes once for its per-base passes (the input check, the frames of every
// chunk): its figures must stay those of the plain string helpers, record by record, on input that is not clean
// upper-case ACGT (lower case, N runs, IUPAC letters, text beyond ASCII, records of several chunks, of 0..5 bases).
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MOSTLY_N_SHARE } from '@virnucpro/consensus';
import { esmTokensFor, nBaseCount } from '@virnucpro/predict';
import { chunkLayout, identifyFrames } from '@virnucpro/sixframe';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../src/errors.js';
import { InputCheck } from '../src/pipeline/input-check.js';
import { countFrames, SHORT_RECORD_BASES } from '../src/pipeline/input-count.js';

const tmp = mkdtempSync(join(tmpdir(), 'input-count-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Rec {
  id: string;
  description: string;
  sequence: string;
}

/** The counts by the definitions: every chunk's frames built (identifyFrames), the fingerprint's text hashed whole. */
function reference(records: Rec[], chunkLength: number, select: (i: number) => boolean, minLength: number) {
  const counts = { sequences: 0, chunks: 0, frames: 0, esmTokens: 0, skipped: 0, mostlyN: 0, mostlyNExamples: [] as string[], short: 0, shortExamples: [] as string[], fingerprint: '' };
  records.forEach((r, i) => {
    if (!select(i)) return;
    counts.sequences++;
    const n = nBaseCount(r.sequence);
    if (n > MOSTLY_N_SHARE * r.sequence.length) {
      counts.mostlyN++;
      if (counts.mostlyNExamples.length < 3) counts.mostlyNExamples.push(`'${r.id}' ${Math.round((100 * n) / r.sequence.length)}%`);
    }
    if (r.sequence.length < minLength) return void counts.skipped++;
    if (r.sequence.length < SHORT_RECORD_BASES) {
      counts.short++;
      if (counts.shortExamples.length < 3) counts.shortExamples.push(`'${r.id}' ${r.sequence.length} bp`);
    }
    for (const span of chunkLayout(r.sequence.length, chunkLength)) {
      counts.chunks++;
      for (const frame of identifyFrames('c', r.sequence.slice(span.start, span.end))) {
        counts.frames++;
        counts.esmTokens += esmTokensFor(frame.protein.length);
      }
    }
  });
  const text = records.map((r) => `>${r.id}\t${r.description}\n${r.sequence}\n`).join('');
  counts.fingerprint = `sha256:${createHash('sha256').update(text).digest('hex')}`;
  return counts;
}

function randomRecords(seed: number, count: number): Rec[] {
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const alphabets = ['ACGT', 'ACGTacgt', 'ACGTNNNNnn', 'ACGTRYKMacgtn', 'ACGTACGTACGTé', 'ACGTACGTACGT\u{1F600}'];
  const lengths = [1, 2, 3, 4, 5, 49, 50, 150, 299, 300, 301, 599, 601, 1000];
  return Array.from({ length: count }, (_, i) => {
    const letters = [...alphabets[i % alphabets.length]];
    const length = random() < 0.5 ? lengths[Math.floor(random() * lengths.length)] : 1 + Math.floor(random() * 800);
    const sequence = Array.from({ length }, () => letters[Math.floor(random() * letters.length)]).join('');
    const id = i % 7 === 3 ? `r${i}_é` : `r${i}`;
    return { id, description: i % 2 ? `${id} sample ${i}` : id, sequence };
  });
}

const fasta = (records: Rec[]) => records.map((r) => `>${r.description}\n${r.sequence.replace(/(.{60})/gu, '$1\n')}\n`).join('');

describe('countFrames', () => {
  it('counts as the string helpers do, and the fingerprint is the sha256 of the records as read, on untidy input', async () => {
    const records = randomRecords(5, 600);
    const input = join(tmp, 'untidy.fa');
    writeFileSync(input, fasta(records));
    for (const [chunkLength, minLength, select] of [
      [300, 0, () => true],
      [500, 40, (i: number) => i % 3 !== 1],
    ] as const) {
      const counts = await countFrames(input, chunkLength, { check: new InputCheck(input, 'untidy.fa', true), minLength, select });
      expect(counts).toEqual(reference(records, chunkLength, select, minLength));
    }
  });

  it('refuses a record mostly outside the nucleotide codes with the same share, ASCII or not', async () => {
    for (const [name, sequence, share] of [
      ['ascii', `${'ACGT'.repeat(20)}${'EFILPQ'.repeat(4)}`, 23],
      ['beyond', `${'ACGT'.repeat(20)}${'EFIé'.repeat(6)}`, 23],
    ] as const) {
      const input = join(tmp, `${name}.fa`);
      writeFileSync(input, `>ok\n${'ACGT'.repeat(30)}\n>bad\n${sequence}\n`);
      const refused = countFrames(input, 300, { check: new InputCheck(input, name, false) });
      await expect(refused).rejects.toThrow(UsageError);
      await expect(refused).rejects.toThrow(`${name}: line 3: record 'bad' is not DNA: ${share}% of its ${sequence.length} characters`);
    }
  });
});
