import { MOSTLY_N_SHARE } from '@virnucpro/consensus';
import { plural } from '../progress/plural.js';
import { SHORT_RECORD_BASES, type FrameCounts } from './input-count.js';

/**
 * What predict says about the input once it has been read: records skipped by --min-length, and records that are
 * mostly N (more than MOSTLY_N_SHARE of their bases), whose calls rest on few real bases, and records too short to
 * say much (SHORT_RECORD_BASES). One line each.
 */
export function inputNotes(totals: FrameCounts, minLength: number | undefined): string[] {
  const lines: string[] = [];
  if (minLength !== undefined && totals.skipped > 0) {
    lines.push(`virnucpro: note: ${plural(totals.skipped, 'record')} shorter than --min-length ${minLength} skipped (call 'skipped' in sequence_summary.tsv, no other rows)`);
  }
  if (totals.mostlyN > 0) {
    const more = totals.mostlyN > totals.mostlyNExamples.length ? ', …' : '';
    lines.push(
      `virnucpro: warning: ${plural(totals.mostlyN, 'record')} ${totals.mostlyN === 1 ? 'is' : 'are'} mostly N (over ${100 * MOSTLY_N_SHARE}% of the bases: ` +
        `${totals.mostlyNExamples.join(', ')}${more}); their calls rest on few real bases (see fraction_n in sequence_summary.tsv)`,
    );
  }
  if (totals.short > 0) {
    const more = totals.short > totals.shortExamples.length ? ', …' : '';
    lines.push(
      `virnucpro: warning: ${plural(totals.short, 'record')} ${totals.short === 1 ? 'is' : 'are'} shorter than ${SHORT_RECORD_BASES} bases ` +
        `(${totals.shortExamples.join(', ')}${more}); ${totals.short === 1 ? 'its calls rest' : 'their calls rest'} on frames of a few codons ` +
        `(the MLPs were trained on 300 and 500 bp chunks); --min-length ${SHORT_RECORD_BASES} skips such records`,
    );
  }
  return lines;
}
