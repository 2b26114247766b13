#!/usr/bin/env node
// Module-boundary check for one package (run from the package directory).
// Rules: (1) another @virnucpro package is imported only by its bare name
// (its public src/index.ts) or a subpath it exports, never a deep path; (2) no relative import leaves
// the package; (3) every @virnucpro import is declared in package.json.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, resolve, dirname, relative } from 'node:path';

const pkgDir = process.cwd();
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const declared = new Set([
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.devDependencies ?? {}),
  ...Object.keys(pkg.optionalDependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
]);
const importRe = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function* sourceFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** A deep import is allowed when the target package lists it in its `exports` (a public entry point). */
function isPublicSubpath(parts) {
  try {
    const target = JSON.parse(readFileSync(join(pkgDir, '..', parts[1], 'package.json'), 'utf8'));
    return Object.hasOwn(target.exports ?? {}, `./${parts.slice(2).join('/')}`);
  } catch {
    return false;
  }
}

const problems = [];
for (const top of ['src', 'test', 'bin']) {
  let exists = true;
  try { statSync(join(pkgDir, top)); } catch { exists = false; }
  if (!exists) continue;
  for (const file of sourceFiles(join(pkgDir, top))) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? m[3];
      const where = `${relative(pkgDir, file)}: '${spec}'`;
      if (spec.startsWith('@virnucpro/')) {
        const parts = spec.split('/');
        if (parts.length > 2 && !isPublicSubpath(parts)) problems.push(`${where} reaches into another package's internals; import '${parts.slice(0, 2).join('/')}'`);
        const name = parts.slice(0, 2).join('/');
        if (name !== pkg.name && !declared.has(name)) problems.push(`${where} is not declared in package.json dependencies`);
      } else if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (relative(pkgDir, target).startsWith('..')) problems.push(`${where} leaves the package directory`);
      }
    }
  }
}
if (problems.length) {
  console.error(`${pkg.name}: module boundary violations:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`${pkg.name}: module boundaries OK`);
