// The `virnucpro` command bundled with esbuild: the CLI and the features worker as ESM files sharing chunks, and the
// runtime's worker entry beside them. One implementation for both places the bundle is used:
// - `npm run build` of @virnucpro/cli writes it to packages/cli/dist/bundle, which bin/virnucpro.js runs: one file per
//   entry instead of ~800 modules (rxjs alone opens 235), so a command starts in ~0.2 s instead of ~0.55 s and a small
//   predict costs half the CPU (docs/development.md);
// - tools/pack-cli.mjs ships it in the self-contained tarball.
//   node tools/release/bundle-cli.mjs --out DIR   (from anywhere; DIR relative to the current folder)
import { cpSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Loaded at run time, never bundled: through createRequire (yargs, koffi) or optional native backends. */
export const unbundled = ['yargs', 'koffi', 'webgpu', '@tensorflow/tfjs-node', '@tensorflow/tfjs-node-gpu'];

/**
 * Writes the bundle's code to `out` (virnucpro.js exports `main`; features-worker.js; shared chunks) and the
 * runtime's worker entry to `out/../worker`, where the runtime's bundled code looks for it
 * (`new URL('../worker/worker-entry.mjs', import.meta.url)`), as @virnucpro/predict looks for
 * `./features-worker.js` beside its own code. With `wasm`, tfjs' wasm binaries are copied there too (a bundle that
 * travels without node_modules; bin sets VIRNUCPRO_TFJS_WASM_DIR to it).
 */
export async function bundleCli({ out, wasm }) {
  rmSync(out, { recursive: true, force: true });
  await build({
    entryPoints: {
      virnucpro: join(root, 'packages/cli/src/main.ts'),
      'features-worker': join(root, 'packages/predict/src/features-worker.ts'),
      // What predict's workers import first, beside features-worker.js (the backend's start begun while it loads).
      'features-worker-prepare': join(root, 'packages/predict/src/features-worker-prepare.ts'),
      // `embed`'s model thread (VIRNUCPRO_EMBED_THREAD=1), loaded by its path beside the CLI's code.
      'embed-worker': join(root, 'packages/cli/src/commands/embed-worker.ts'),
      // @virnucpro/dnabert's BpePool looks for it beside its own code, as predict looks for features-worker.js.
      'bpe-worker': join(root, 'packages/dnabert/src/bpe-worker.ts'),
    },
    outdir: out,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    conditions: ['@virnucpro/source'],
    external: unbundled,
    minifyWhitespace: true,
    minifySyntax: true,
    ignoreAnnotations: true,
    logLevel: 'warning',
    // Bundled CommonJS code (tfjs) expects require, __filename and __dirname.
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; import { fileURLToPath as __fu } from 'node:url'; import { dirname as __dn } from 'node:path'; const require = __cr(import.meta.url); globalThis.__filename ??= __fu(import.meta.url); globalThis.__dirname ??= __dn(globalThis.__filename);",
    },
  });
  const worker = join(out, '..', 'worker');
  rmSync(worker, { recursive: true, force: true });
  mkdirSync(worker, { recursive: true });
  const workerSource = join(root, 'packages/runtime/worker');
  for (const f of readdirSync(workerSource)) if (f.endsWith('.mjs')) cpSync(join(workerSource, f), join(worker, f));
  if (wasm) {
    mkdirSync(wasm, { recursive: true });
    const wasmDist = join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist');
    for (const f of readdirSync(wasmDist)) if (f.endsWith('.wasm')) cpSync(join(wasmDist, f), join(wasm, f));
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--out');
  if (at < 0 || !process.argv[at + 1]) {
    console.error('usage: node tools/release/bundle-cli.mjs --out DIR');
    process.exit(2);
  }
  await bundleCli({ out: resolve(process.argv[at + 1]) });
}
