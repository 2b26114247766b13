#!/usr/bin/env node
// Module-boundary check for one package (run from the package directory), over every source file of the package
// (src/, bin/, worker/, scripts/, assembly/, test/). Rules: (1) another @virnucpro package is imported only by its
// bare name (its public src/index.ts) or a subpath it exports, never a deep path; (2) no relative import leaves the
// package (so nothing imports from tools/ or another package's folder), and the code that ships or builds the
// package (everything but test/) names no path outside it either (new URL('../../../tools/…'): tests may read
// test-data/ and run a tool as a process); (3) every @virnucpro import is declared in package.json; (4) floors
// (tools/lint/floors.json): src/, bin/ and worker/ import only packages on lower floors, declared as dependencies
// (not devDependencies); (5) no package depends on itself through others, dependencies and devDependencies alike
// (no cycle); (6) no import cycle among the package's own modules in src/, bin/ and worker/. docs/architecture.md
// ("Packages") says how this is run.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
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
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
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
const scope = '@virnucpro/';
const shortName = (name) => name.slice(scope.length);
const { floors } = JSON.parse(readFileSync(new URL('./floors.json', import.meta.url), 'utf8'));
const floorOf = new Map(floors.flatMap(({ floor, packages }) => packages.map((name) => [name, floor])));
const ownFloor = floorOf.get(shortName(pkg.name));
if (ownFloor === undefined) problems.push(`${pkg.name} stands on no floor: add it to tools/lint/floors.json`);
const runtimeDeps = new Set([
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.optionalDependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
]);

/** Every workspace package's @virnucpro dependencies (runtime and dev), read from the package.json files. */
function workspaceGraph() {
  const graph = new Map();
  for (const dir of readdirSync(join(pkgDir, '..'))) {
    let other;
    try { other = JSON.parse(readFileSync(join(pkgDir, '..', dir, 'package.json'), 'utf8')); } catch { continue; }
    const deps = Object.keys({ ...other.dependencies, ...other.optionalDependencies, ...other.peerDependencies, ...other.devDependencies });
    graph.set(other.name, deps.filter((name) => name.startsWith(scope)));
  }
  return graph;
}

/** A path of dependencies from this package back to itself, if there is one. */
function cycleThroughSelf(graph) {
  const seen = new Set();
  const walk = (name, path) => {
    for (const next of graph.get(name) ?? []) {
      if (next === pkg.name) return [...path, next];
      if (seen.has(next)) continue;
      seen.add(next);
      const found = walk(next, [...path, next]);
      if (found) return found;
    }
    return undefined;
  };
  return walk(pkg.name, [pkg.name]);
}
const cycle = cycleThroughSelf(workspaceGraph());
if (cycle) problems.push(`dependency cycle: ${cycle.join(' -> ')}`);

// Code that runs when the package is used; scripts/ and test/ run only in the workspace (devDependencies suffice).
const runTime = new Set(['src', 'bin', 'worker']);
const outsideUrlRe = /new URL\(\s*['"]((?:\.\.\/)+[^'"]*)['"]/g;
for (const top of ['src', 'bin', 'worker', 'scripts', 'assembly', 'test']) {
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
        if (name !== pkg.name && runTime.has(top)) {
          const floor = floorOf.get(shortName(name));
          if (ownFloor !== undefined && floor !== undefined && floor >= ownFloor) {
            problems.push(`${where} imports a package on floor ${floor} from floor ${ownFloor} (tools/lint/floors.json): only lower floors`);
          }
          if (declared.has(name) && !runtimeDeps.has(name)) problems.push(`${where} is needed at run time: declare it in dependencies, not devDependencies`);
        }
      } else if (spec.startsWith('.')) {
        const target = resolve(dirname(file), spec);
        if (relative(pkgDir, target).startsWith('..')) problems.push(`${where} leaves the package directory`);
      }
    }
    if (top === 'test') continue;
    for (const m of text.matchAll(outsideUrlRe)) {
      const target = resolve(dirname(file), m[1]);
      if (relative(pkgDir, target).startsWith('..')) problems.push(`${relative(pkgDir, file)}: '${m[1]}' names a path outside the package`);
    }
  }
}
// (6) No import cycle among the package's own modules (src/, bin/, worker/), so each file can be read bottom-up.
const moduleGraph = new Map();
for (const top of runTime) {
  try { statSync(join(pkgDir, top)); } catch { continue; }
  for (const file of sourceFiles(join(pkgDir, top))) {
    const targets = [];
    for (const m of readFileSync(file, 'utf8').matchAll(importRe)) {
      const spec = m[1] ?? m[2] ?? m[3];
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec);
      targets.push(target.endsWith('.js') && !existsSync(target) ? target.replace(/\.js$/, '.ts') : target);
    }
    moduleGraph.set(file, targets);
  }
}
const visiting = new Set();
const done = new Set();
const findCycle = (file, path) => {
  visiting.add(file);
  for (const next of moduleGraph.get(file) ?? []) {
    if (visiting.has(next)) return [...path.slice(path.indexOf(next)), next];
    if (done.has(next) || !moduleGraph.has(next)) continue;
    const found = findCycle(next, [...path, next]);
    if (found) return found;
  }
  visiting.delete(file);
  done.add(file);
  return undefined;
};
for (const file of moduleGraph.keys()) {
  if (done.has(file)) continue;
  const found = findCycle(file, [file]);
  if (found) { problems.push(`import cycle between modules: ${found.map((f) => relative(pkgDir, f)).join(' -> ')}`); break; }
}

if (problems.length) {
  console.error(`${pkg.name}: module boundary violations:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(`${pkg.name}: module boundaries OK`);
