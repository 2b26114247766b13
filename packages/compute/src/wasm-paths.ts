import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { existsSync } from 'node:fs';

/** Environment variable naming the folder that holds the tfjs-backend-wasm `.wasm` files (for bundled builds). */
export const wasmDirEnvVar = 'VIRNUCPRO_TFJS_WASM_DIR';

/**
 * The folder with `tfjs-backend-wasm*.wasm`, ending in a path separator as `setWasmPaths` expects.
 * Order: explicit argument, $VIRNUCPRO_TFJS_WASM_DIR, the installed package's `dist/`.
 */
export function resolveWasmDir(explicit?: string): string {
  const chosen = explicit ?? process.env[wasmDirEnvVar];
  let dir: string;
  if (chosen) {
    dir = resolve(chosen);
  } else {
    const require = createRequire(import.meta.url);
    // The package's "main" lives in dist/, next to the .wasm binaries.
    dir = dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
    if (!existsSync(join(dir, 'tfjs-backend-wasm.wasm'))) dir = join(dir, '..', 'dist');
  }
  if (!existsSync(join(dir, 'tfjs-backend-wasm.wasm'))) {
    throw new Error(
      `tfjs wasm binaries not found in ${dir} (expected tfjs-backend-wasm.wasm there; set ${wasmDirEnvVar} to the folder that holds them)`,
    );
  }
  return dir.endsWith('/') ? dir : `${dir}/`;
}
