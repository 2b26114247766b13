#!/usr/bin/env node
// Scaffolds packages/<dir> as @virnucpro/<dir> with the workspace's build/test/lint wiring.
// Usage: node tools/new-package.mjs <dir> "<one-line description>"
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const [dir, description = ''] = process.argv.slice(2);
if (!dir) { console.error('usage: new-package.mjs <dir> "<description>"'); process.exit(2); }
// What every library manifest repeats from the repository's (tools/release/manifest-problems.mjs checks it).
const workspace = JSON.parse(readFileSync('package.json', 'utf8'));
const root = join('packages', dir);
if (existsSync(root)) { console.error(`${root} exists`); process.exit(1); }
mkdirSync(join(root, 'src'), { recursive: true });
mkdirSync(join(root, 'test'), { recursive: true });
const pkg = {
  name: `@virnucpro/${dir}`,
  version: '0.1.0',
  description,
  type: 'module',
  license: workspace.license,
  repository: { ...workspace.repository, directory: `packages/${dir}` },
  engines: workspace.engines,
  main: './dist/index.js',
  types: './dist/index.d.ts',
  exports: {
    '.': {
      '@virnucpro/source': './src/index.ts',
      types: './dist/index.d.ts',
      default: './dist/index.js',
    },
  },
  files: ['dist', 'README.md'],
  scripts: {
    build: 'tsc -p tsconfig.build.json',
    test: 'vitest run',
    lint: 'node ../../tools/lint/check-boundaries.mjs && tsc -p tsconfig.json --noEmit',
  },
  dependencies: {},
};
const json = (o) => JSON.stringify(o, null, 2) + '\n';
writeFileSync(join(root, 'package.json'), json(pkg));
writeFileSync(join(root, 'tsconfig.json'), json({
  extends: '../../tsconfig.base.json',
  compilerOptions: { noEmit: true, customConditions: ['@virnucpro/source'], allowImportingTsExtensions: false },
  include: ['src', 'test'],
}));
writeFileSync(join(root, 'tsconfig.build.json'), json({
  extends: '../../tsconfig.base.json',
  compilerOptions: { rootDir: 'src', outDir: 'dist' },
  include: ['src'],
  exclude: ['src/**/*.test.ts'],
}));
writeFileSync(join(root, 'vitest.config.ts'), "export { default } from '../../vitest.shared.ts';\n");
writeFileSync(join(root, 'README.md'), `# @virnucpro/${dir}\n\n${description}\n`);
writeFileSync(join(root, 'src', 'index.ts'), 'export {};\n');
console.log(`created ${root}`);
