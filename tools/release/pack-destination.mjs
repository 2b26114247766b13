// Where a packing tool may write its tarballs: anywhere but inside packages/, where a .tgz would be clutter one
// `git add .` away from being committed (.gitignore has a rule against that too).
import { isAbsolute, relative, resolve, sep } from 'node:path';

/** `dir` resolved, or an error if it lies inside `root`/packages. */
export function packDestination(root, dir) {
  const out = resolve(dir);
  const inside = relative(resolve(root, 'packages'), out);
  const outside = inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside);
  if (!outside) {
    throw new Error(`refusing to write tarballs into ${out}: choose a folder outside packages/ (e.g. --out /tmp/virnucpro-packs)`);
  }
  return out;
}
