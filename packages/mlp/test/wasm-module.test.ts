import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// src/wasm/mlp-hidden-wasm.ts is generated from assembly/mlp-hidden.ts and committed (so installs and bundles need
// no compiler); this keeps the two from drifting apart.
describe('committed WebAssembly MLP kernel', () => {
  it('is what assembly/mlp-hidden.ts compiles to', () => {
    const script = fileURLToPath(new URL('../scripts/build-wasm.mjs', import.meta.url));
    expect(() => execFileSync(process.execPath, [script, '--check'], { stdio: 'pipe' })).not.toThrow();
  }, 60_000);
});
