// Compiles assembly/mlp-hidden.ts (AssemblyScript) and writes src/wasm/mlp-hidden-wasm.ts, the module's bytes
// as base64, so the package needs no .wasm file next to its JavaScript (bundlers, the device bundle).
//   node scripts/build-wasm.mjs          regenerate
//   node scripts/build-wasm.mjs --check  exit 1 if the committed module differs from a fresh compile
import { buildAssemblyScript } from '@virnucpro/wasm-build';

await buildAssemblyScript({
  root: new URL('..', import.meta.url),
  entry: 'assembly/mlp-hidden.ts',
  target: 'src/wasm/mlp-hidden-wasm.ts',
  constName: 'MLP_HIDDEN_WASM_BASE64',
  check: process.argv.includes('--check'),
});
