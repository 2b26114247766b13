/**
 * A 32-bit FNV-1a hash of an item's id (over its UTF-16 code units), stored in a shard instead of the id itself:
 * 4 bytes a frame, where a read's id can take 60. A resumed run checks each restored item's id against it, so a
 * checkpoint of another input still cannot pass for this one (the input's sha256 is checked first, on opening).
 */
export function idHash(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
