import { MLP_HIDDEN_WASM_BASE64 } from './mlp-hidden-wasm.js';

let bytes: Uint8Array | undefined;

/** The hidden-layer kernel's WebAssembly bytes (decoded once). */
export function mlpHiddenWasm(): Uint8Array {
  return (bytes ??= new Uint8Array(Buffer.from(MLP_HIDDEN_WASM_BASE64, 'base64')));
}
