// Which packages are libraries, and in which order they are released.
// A library package is every packages/* that is neither private (dev-only helpers such as wasm-build) nor the CLI
// (the command ships as one bundled tarball: tools/pack-cli.mjs).
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** @typedef {{ dir: string, path: string, manifest: Record<string, any> }} LibraryPackage */

/** The library packages of the repository at `root`, by folder name. @returns {LibraryPackage[]} */
export function libraryPackages(root) {
  return readdirSync(join(root, 'packages'))
    .sort()
    .map((dir) => ({ dir, path: join(root, 'packages', dir), manifest: JSON.parse(readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8')) }))
    .filter(({ manifest }) => !manifest.private && manifest.name !== '@virnucpro/cli');
}

/** The names of the @virnucpro packages a package needs at run time (devDependencies do not reach consumers). */
export function siblingDependencies(manifest) {
  const declared = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
  return Object.keys(declared).filter((name) => name.startsWith('@virnucpro/'));
}

/**
 * The packages in dependency order: each after the @virnucpro packages it depends on, so a release that stops
 * half-way has published no package whose dependencies are missing. Ties keep folder order.
 * @param {LibraryPackage[]} packages
 */
export function dependencyOrder(packages) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const ordered = [];
  const state = new Map(); // name → 'visiting' | 'done'
  const visit = (p, path) => {
    const name = p.manifest.name;
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting') throw new Error(`dependency cycle: ${[...path, name].join(' → ')}`);
    state.set(name, 'visiting');
    for (const dep of siblingDependencies(p.manifest)) if (byName.has(dep)) visit(byName.get(dep), [...path, name]);
    state.set(name, 'done');
    ordered.push(p);
  };
  for (const p of packages) visit(p, []);
  return ordered;
}

/**
 * The named packages and every @virnucpro package they need, transitively (what installing them takes).
 * @param {LibraryPackage[]} packages
 * @param {string[]} names
 */
export function withDependencies(packages, names) {
  const byName = new Map(packages.map((p) => [p.manifest.name, p]));
  const wanted = new Set();
  const add = (name) => {
    if (wanted.has(name)) return;
    if (!byName.has(name)) throw new Error(`${name} is not a library package (${[...byName.keys()].join(', ')})`);
    wanted.add(name);
    for (const dep of siblingDependencies(byName.get(name).manifest)) add(dep);
  };
  for (const name of names) add(name);
  return packages.filter((p) => wanted.has(p.manifest.name));
}
