import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Sonames of oneDNN's library, newest first: v3 (oneAPI 2023+, Debian trixie, conda) and v2 (Debian bookworm). */
const SONAMES = ['libdnnl.so.3', 'libdnnl.so.2', 'libdnnl.so'];
const SYSTEM_DIRS = ['/usr/lib/x86_64-linux-gnu', '/usr/lib64', '/usr/local/lib', '/usr/lib', '/opt/intel/oneapi/dnnl/latest/lib'];

/** How to get oneDNN, for the one line the CLI prints when it is missing. */
export const ONEDNN_INSTALL_HINT =
  'install oneDNN for the fast CPU path: `apt-get install libdnnl2` (Debian/Ubuntu), `conda install -c conda-forge onednn`, ' +
  'or `module load onednn` (HPC), or set VIRNUCPRO_ONEDNN_LIB to libdnnl.so';

export interface OnednnSearch {
  /** Paths or bare sonames, in the order to try them (a bare soname goes through the dynamic loader's own search). */
  candidates: string[];
}

/**
 * Where to look for libdnnl, in order: $VIRNUCPRO_ONEDNN_LIB (a file), the `LD_LIBRARY_PATH` folders, an active
 * conda environment's lib/, the system library folders, then the bare sonames (ld.so.cache).
 */
export function onednnCandidates(env: NodeJS.ProcessEnv = process.env, exists: (path: string) => boolean = existsSync): OnednnSearch {
  if (env.VIRNUCPRO_ONEDNN_LIB) return { candidates: [env.VIRNUCPRO_ONEDNN_LIB] };
  const dirs = [
    ...(env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean),
    ...(env.CONDA_PREFIX ? [join(env.CONDA_PREFIX, 'lib')] : []),
    ...SYSTEM_DIRS,
  ];
  const files = dirs.flatMap((dir) => SONAMES.map((name) => join(dir, name))).filter((path) => exists(path));
  return { candidates: [...new Set([...files, ...SONAMES])] };
}
