// Compiles assembly/cpu-kernels.ts (AssemblyScript) and writes src/wasm/cpu-kernels-wasm.ts, the module's bytes
// as base64, so the package needs no .wasm file next to its JavaScript (bundlers, the device bundle).
//   node scripts/build-wasm.mjs          regenerate
//   node scripts/build-wasm.mjs --check  exit 1 if the committed module differs from a fresh compile
import { buildAssemblyScript } from '@virnucpro/wasm-build';

await buildAssemblyScript({
  root: new URL('..', import.meta.url),
  entry: 'assembly/cpu-kernels.ts',
  target: 'src/wasm/cpu-kernels-wasm.ts',
  constName: 'CPU_KERNELS_WASM_BASE64',
  check: process.argv.includes('--check'),
});
