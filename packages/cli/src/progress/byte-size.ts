/** A byte count as a person reads it: `820 B`, `14.2 kB`, `1.3 MB`, `2.0 GB` (decimal units, as `ls -h --si`). */
export function byteSize(bytes: number): string {
  if (bytes < 1e3) return `${bytes} B`;
  const [unit, scale] = bytes < 1e6 ? ['kB', 1e3] : bytes < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  return `${(bytes / scale).toFixed(1)} ${unit}`;
}
