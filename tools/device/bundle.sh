#!/usr/bin/env bash
# Builds .bundle/ for the GPU machine (no Node.js, no registry there): each entry point bundled with esbuild into
# one ESM file, plus the native Dawn addon of the `webgpu` package, koffi (the cuda backend's FFI, kept outside
# the bundle: it finds its native addon relative to its own files; linux_x64 only) and tfjs' wasm binaries.
# Usage: bash tools/device/bundle.sh ENTRY.(ts|mjs) [ENTRY ...]   (from the repo root; run pack.sh once for .device/)
# On the device: source .device/on-device.sh && source tools/device/unpack-bundle.sh && node .bundle/<name>.mjs ...
set -euo pipefail
# The CLI starts `embed dnabert`'s model thread from ./embed-worker.js beside its code: it goes with the CLI's entry.
case " $* " in *virnucpro-entry.ts*) set -- "$@" packages/cli/src/commands/embed-worker.ts;; esac
# predict's workers import ./features-worker-prepare.js (the backend's start begun while the models' code loads) first.
case " $* " in *packages/predict/src/features-worker.ts*) set -- "$@" packages/predict/src/features-worker-prepare.ts;; esac
out=.bundle
rm -rf "$out"; mkdir -p "$out/node_modules/webgpu/dist/linux-x64" "$out/wasm"
cp node_modules/webgpu/index.js node_modules/webgpu/package.json "$out/node_modules/webgpu/"
# dawn.node is 21 MB; xz brings it to ~5 MB so bundle + .device + the tree stay under the 64 MiB that travels.
# NO_DAWN=1 leaves it out for runs that never use webgpu.
[ -z "${NO_DAWN:-}" ] && xz -T2 -6 -c node_modules/webgpu/dist/linux-x64/dawn.node > "$out/dawn.node.xz"
mkdir -p "$out/node_modules/koffi" "$out/node_modules/@koromix/koffi-linux-x64"
cp -r node_modules/koffi/{package.json,index.js,index.cjs,src,lib} "$out/node_modules/koffi/"
cp -r node_modules/@koromix/koffi-linux-x64/{package.json,index.js,linux_x64} "$out/node_modules/@koromix/koffi-linux-x64/"
[ -n "${WITH_WASM:-}" ] && cp node_modules/@tensorflow/tfjs-backend-wasm/dist/*.wasm "$out/wasm/"  # wasm binaries only on request (size)
# __dirname/__filename (tfjs-backend-wasm needs them) go on globalThis so bundled modules that declare their own
# do not clash. One esbuild call with code splitting: the entries share tfjs and our packages as common chunks.
npx esbuild "$@" --bundle --splitting --platform=node --format=esm --minify-whitespace --minify-syntax --target=node20 \
  --conditions=@virnucpro/source --ignore-annotations --external:webgpu --external:koffi --external:@tensorflow/tfjs-node --external:@tensorflow/tfjs-node-gpu \
  --banner:js="import { createRequire as __cr } from 'module'; import { fileURLToPath as __fu } from 'url'; import { dirname as __dn } from 'path'; const require = __cr(import.meta.url); globalThis.__filename ??= __fu(import.meta.url); globalThis.__dirname ??= __dn(globalThis.__filename);" \
  --entry-names=[name] --out-extension:.js=.mjs --outdir="$out" --log-level=warning
# @virnucpro/dnabert's BpePool starts ./bpe-worker.js beside its own code: an ES module, so a package.json says so.
npx esbuild packages/dnabert/src/bpe-worker.ts --bundle --platform=node --format=esm --target=node20 \
  --conditions=@virnucpro/source --outfile="$out/bpe-worker.js" --log-level=warning
echo '{ "type": "module" }' > "$out/package.json"
# The worker modules loaded by path (predict's ./features-worker.js and ./features-worker-prepare.js, the CLI's
# ./embed-worker.js) under the name the code asks for.
for w in features-worker features-worker-prepare embed-worker; do [ ! -f "$out/$w.mjs" ] || cp "$out/$w.mjs" "$out/$w.js"; done
# yargs stays outside the bundle when an entry needs it: the cli loads its CommonJS build through createRequire
# (see packages/cli/src/main.ts), which esbuild cannot follow.
if grep -q "yargs/yargs" "$out"/*.mjs; then
  for dep in yargs cliui escalade get-caller-file require-directory string-width y18n yargs-parser emoji-regex \
    is-fullwidth-code-point strip-ansi ansi-regex wrap-ansi ansi-styles color-convert color-name; do
    cp -rL "node_modules/$dep" "$out/node_modules/"
  done
fi
du -sh "$out"
