/** One kept reading frame flowing through predict: `@virnucpro/sixframe`'s Frame. */
export interface FrameItem {
  /** `{record}_chunk_{k}{F1..R3}` */
  id: string;
  nucleotide: string;
  protein: string;
  /** Embed at the backend's refinement precision (frame-refinement.ts): the second look at a frame scored near 0.5. */
  refine?: true;
}

/** ESM-2 tokens of a protein of `residues`: residues + BOS + EOS. */
export const esmTokensFor = (residues: number): number => residues + 2;

/** ESM-2 tokens of a frame. Batches are packed on this count (ESM-2 dominates cost). */
export const esmTokenCount = (frame: FrameItem): number => esmTokensFor(frame.protein.length);
