import { createHash, type Hash } from 'node:crypto';
import type { FastaRecord } from '@virnucpro/fasta-stream';

/**
 * The input's identity for --resume: sha256 over its records (id, description, sequence, in order) as read, i.e.
 * after decompression and FASTA parsing. The same sequences given gzipped, plain, re-wrapped or with CRLF line
 * ends are the same input; any change to an id or a residue is another one. (File bytes would tell a gzip of the
 * input from the input itself.) Taken record by record in the pass that counts the input (input-count.ts), so the
 * input is read once before the run.
 */
export class InputFingerprint {
  private readonly hash: Hash = createHash('sha256');
  /** Records not yet hashed: one update() per ~64 kB instead of per record (a call costs more than a read's bytes). */
  private pending = '';

  add(record: Pick<FastaRecord, 'id' | 'description' | 'sequence'>): void {
    this.pending += `>${record.id}\t${record.description}\n${record.sequence}\n`;
    if (this.pending.length >= PENDING_CHARACTERS) this.hashPending();
  }

  /** `sha256:<hex>` of every record added. */
  digest(): string {
    this.hashPending();
    return `sha256:${this.hash.digest('hex')}`;
  }

  private hashPending(): void {
    if (this.pending.length > 0) this.hash.update(this.pending);
    this.pending = '';
  }
}

const PENDING_CHARACTERS = 1 << 16;
