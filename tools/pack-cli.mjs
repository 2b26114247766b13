#!/usr/bin/env node
// Packs the `virnucpro` command as one self-contained npm package, `virnucpro-<version>.tgz`, that installs on a
// machine without the repository and without registry access:
//   node tools/pack-cli.mjs [--out DIR]        (from the repo root; no build needed: bundles the TypeScript sources)
//   npm install -g ./virnucpro-<version>.tgz   (add --prefix DIR to install without root; the command is DIR/bin/virnucpro)
// Inside: the CLI bundled with esbuild (all @virnucpro packages, tfjs, rxjs… in dist/), the runtime's worker entry,
// tfjs' wasm binaries, and the few dependencies that cannot be bundled, shipped in the tarball (bundleDependencies):
// yargs (its CommonJS build is loaded through createRequire) and koffi (the cuda backend's FFI; linux-x64 addon).
// Not included: the optional `webgpu` and `@tensorflow/tfjs-node*` backends (install them beside it to use them).
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleCli } from './release/bundle-cli.mjs';
import { packDestination } from './release/pack-destination.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outIndex = process.argv.indexOf('--out');
const outDir = packDestination(root, outIndex > 0 ? process.argv[outIndex + 1] : process.cwd());
const cli = JSON.parse(readFileSync(join(root, 'packages/cli/package.json'), 'utf8'));
const staging = mkdtempSync(join(tmpdir(), 'virnucpro-pack-'));
const stage = join(staging, 'virnucpro');
mkdirSync(join(stage, 'bin'), { recursive: true });

// The CLI and the features worker bundled into dist/, the runtime's worker entry into worker/, tfjs' wasm binaries
// into wasm/ (tools/release/bundle-cli.mjs: the same bundle `npm run build` makes for the repository's bin).
await bundleCli({ out: join(stage, 'dist'), wasm: join(stage, 'wasm') });
// Shipped in the tarball: what the bundle loads at run time (`unbundled`) but the optional backends.
const shipped = ['yargs', 'koffi'];

writeFileSync(
  join(stage, 'bin/virnucpro.js'),
  `#!/usr/bin/env node
// The installed command: the bundled CLI in ../dist, tfjs' wasm binaries in ../wasm.
import { fileURLToPath } from 'node:url';
process.env.VIRNUCPRO_TFJS_WASM_DIR ??= fileURLToPath(new URL('../wasm/', import.meta.url));
const { main } = await import('../dist/virnucpro.js');
await main(process.argv.slice(2));
`,
  { mode: 0o755 },
);

// The shipped dependencies and everything they need, copied from the repository's node_modules.
const versions = {};
const copyPackage = (name) => {
  const target = join(stage, 'node_modules', name);
  if (existsSync(target)) return;
  const source = join(root, 'node_modules', name);
  const pkg = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8'));
  cpSync(source, target, { recursive: true, dereference: true });
  versions[name] = pkg.version;
  for (const dep of Object.keys(pkg.dependencies ?? {})) copyPackage(dep);
};
for (const name of shipped) copyPackage(name);
// koffi's native addon comes from one optional package per platform; ship linux-x64's (the platform of the
// cuda backend) and declare only that one, so installing never looks for the others.
copyPackage('@koromix/koffi-linux-x64');
const koffiJson = join(stage, 'node_modules/koffi/package.json');
const koffi = JSON.parse(readFileSync(koffiJson, 'utf8'));
koffi.optionalDependencies = { '@koromix/koffi-linux-x64': versions['@koromix/koffi-linux-x64'] };
writeFileSync(koffiJson, JSON.stringify(koffi, null, 2) + '\n');

const dependencies = Object.fromEntries(shipped.map((name) => [name, versions[name]]));
writeFileSync(
  join(stage, 'package.json'),
  JSON.stringify(
    {
      name: 'virnucpro',
      version: cli.version,
      description: `${cli.description} (self-contained: every @virnucpro package bundled)`,
      type: 'module',
      license: cli.license,
      engines: { node: '>=20' },
      bin: { virnucpro: 'bin/virnucpro.js' },
      files: ['bin', 'dist', 'worker', 'wasm', 'README.md'],
      dependencies,
      bundleDependencies: Object.keys(dependencies),
    },
    null,
    2,
  ) + '\n',
);
cpSync(join(root, 'packages/cli/README.md'), join(stage, 'README.md'));

mkdirSync(outDir, { recursive: true });
try {
  const packed = execFileSync('npm', ['pack', stage, '--pack-destination', outDir, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
  console.log(join(outDir, packed));
} finally {
  rmSync(staging, { recursive: true, force: true });
}
