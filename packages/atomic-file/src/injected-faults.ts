import { basename } from 'node:path';

/**
 * Test hook: $VIRNUCPRO_TEST_FULL_DISK lists file names (comma-separated) whose atomic writes fail as on a
 * full disk (ENOSPC), so tests can check what a run leaves behind when the disk fills up without mounting a
 * small file system. Unset in normal use.
 */
export const FULL_DISK_ENV = 'VIRNUCPRO_TEST_FULL_DISK';

export function injectedWriteFault(path: string): NodeJS.ErrnoException | null {
  const names = process.env[FULL_DISK_ENV];
  if (!names) return null;
  if (!names.split(',').map((n) => n.trim()).includes(basename(path))) return null;
  return Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
}
