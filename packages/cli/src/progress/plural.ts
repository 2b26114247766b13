/** "1 sequence", "2 sequences", "1,234 frames": a count with its noun in the right number. */
export function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}
