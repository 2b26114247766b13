// The original VirNucPro GreedyPacker (reference §5.4), for comparison in the efficiency benches: buffers of
// `window` items, each sorted by length (descending), then next-fit into batches of ≤ `budget` tokens.
export function nextFitDecreasing(all, budget, window) {
  const batches = [];
  for (let start = 0; start < all.length; start += window) {
    const sorted = all.slice(start, start + window).sort((a, b) => b.tokens - a.tokens || a.index - b.index);
    let current = { items: [], tokens: 0, tokenBudget: budget };
    for (const item of sorted) {
      if (current.items.length > 0 && current.tokens + item.tokens > budget) {
        batches.push(current);
        current = { items: [], tokens: 0, tokenBudget: budget };
      }
      current.items.push(item);
      current.tokens += item.tokens;
    }
    if (current.items.length) batches.push(current);
  }
  return batches;
}
