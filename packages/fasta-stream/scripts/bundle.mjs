// Bundles the package's two entry points into one JavaScript file each (dist/bundle/), after tsc has
// written the declarations. Why: Node's ESM loader resolves, reads and compiles every module file on its
// own; the 16 files of this package took ~10 ms to import, one bundled file ~2 ms (docs/benchmarks/fasta.md),
// and that start-up is paid by every short command-line run that reads FASTA.
// The RxJS entry imports the main bundle instead of copying it, so both share one FastaFormatError class.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const common = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  packages: 'external',
  absWorkingDir: root,
  logLevel: 'warning',
};
await build({ ...common, entryPoints: ['src/index.ts'], outfile: 'dist/bundle/index.js' });
await build({
  ...common,
  entryPoints: ['src/rxjs.ts'],
  outfile: 'dist/bundle/rxjs.js',
  plugins: [
    {
      name: 'main-entry-external',
      setup(b) {
        b.onResolve({ filter: /^\.\/index\.js$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
});
