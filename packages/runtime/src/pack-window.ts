/**
 * The packing window (items held back to fill batches) a token budget needs when the user gives none: `minimum`,
 * or enough items for about three batches of 50-token items (budget / 16), whichever is larger. A window that
 * holds fewer than ~2 batches leaves one part-filled batch per window: 52-token proteins (the frames of 150-bp
 * reads) at a 32,768-token budget filled batches 86.9 % with a 1,024-item window and 99.9 % with 2,048; at 65,536,
 * 81 % with 1,024 and 100 % with 4,096 (first-fit decreasing with carry-over, 30,000 items of 50–54 tokens).
 */
export function packWindowFor(tokenBudget: number, minimum: number): number {
  return Math.max(minimum, Math.ceil(tokenBudget / 16));
}
