/**
 * The packing window (items held back to fill batches) a token budget needs when the user gives none: `minimum`,
 * or enough items for about three batches of 50-token items (budget / 16), whichever is larger. A window must hold
 * more than one batch's items for the packer's carry-over to fill its batches: 52-token proteins (the frames of 150-bp
 * reads) at a 32,768-token budget fill batches 99.2 % with a 1,024-item or a 2,048-item window; at 65,536, 79 % with
 * 1,024 (less than a batch) and 99.2 % with 4,096 (first-fit decreasing with carry-over, 30,000 items of 50–54
 * tokens; before the packer placed held-back items first, 2026-11-29, the 1,024-item window at 32,768 gave 86.9 %).
 */
export function packWindowFor(tokenBudget: number, minimum: number): number {
  return Math.max(minimum, Math.ceil(tokenBudget / 16));
}
