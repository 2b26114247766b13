#!/usr/bin/env node
// Which names of each package's public entry points (src/index.ts and the subpaths its package.json `exports`)
// anything outside the package uses: another package's source, tests, scripts or bin, tools/, or the package's own
// README examples (a documented name is public on purpose). A package's own tests may reach internals by relative
// path and do not count. Prints one line per package (exported, used, unused) and, with --unused, the unused names.
//   node tools/lint/export-use.mjs [--unused] [--json] [--no-readme]   (--no-readme: count only code outside the package)
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const packagesDir = join(root, 'packages');

function* files(dir) {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** Names an entry file exports (`export { a, type B, c as d } from`, `export type {…}`, `export const|function|class|…`). */
function exportedNames(file) {
  const text = readFileSync(file, 'utf8');
  const names = new Set();
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const part of m[1].split(',')) {
      const clean = part.replace(/\/\/.*$/gm, '').trim().replace(/^type\s+/, '');
      if (!clean) continue;
      const alias = clean.split(/\s+as\s+/);
      names.add(alias[alias.length - 1].trim());
    }
  }
  for (const m of text.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:const|let|function\*?|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g)) if (m[1] !== '$') names.add(m[1]); // '$': a template's `${…}`
  for (const m of text.matchAll(/export\s+\*\s+from\s+['"]([^'"]+)['"]/g)) {
    for (const ext of ['', '.ts']) {
      const target = resolve(dirname(file), m[1].replace(/\.js$/, '.ts') + ext);
      if (existsSync(target) && statSync(target).isFile()) for (const n of exportedNames(target)) names.add(n);
    }
  }
  return names;
}

const packages = readdirSync(packagesDir)
  .filter((dir) => existsSync(join(packagesDir, dir, 'package.json')))
  .map((dir) => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8'));
    const entries = {};
    for (const [subpath, target] of Object.entries(manifest.exports ?? {})) {
      const source = typeof target === 'string' ? target : target['@virnucpro/source'];
      if (source && /\.(ts|mjs|js)$/.test(source)) entries[subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`] = exportedNames(join(packagesDir, dir, source));
    }
    return { dir, name: manifest.name, entries };
  });

/** Names a file takes from each @virnucpro specifier: `import {…}`, `import * as ns` (+ ns.x), `const {…} = await import()`. */
function importsOf(text) {
  const used = [];
  const add = (spec, list) => {
    for (const part of list.split(',')) {
      const clean = part.replace(/\/\/.*$/gm, '').trim().replace(/^type\s+/, '');
      if (clean) used.push([spec, clean.split(/\s+as\s+|\s*:\s*/)[0].trim()]);
    }
  };
  for (const m of text.matchAll(/(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{([^}]*)\}\s*from\s*['"](@virnucpro\/[^'"]+)['"]/g)) add(m[2], m[1]);
  for (const m of text.matchAll(/const\s*\{([^}]*)\}\s*=\s*(?:await\s+)?import\(\s*['"](@virnucpro\/[^'"]+)['"]\s*\)/g)) add(m[2], m[1]);
  for (const m of text.matchAll(/import\s+\*\s+as\s+([\w$]+)\s+from\s*['"](@virnucpro\/[^'"]+)['"]/g)) {
    for (const u of text.matchAll(new RegExp(`\\b${m[1]}\\.([\\w$]+)`, 'g'))) used.push([m[2], u[1]]);
  }
  for (const m of text.matchAll(/export\s+\*\s+from\s*['"](@virnucpro\/[^'"]+)['"]/g)) used.push([m[1], '*']);
  return used;
}

const usedBy = new Map(); // `${spec}\0${name}` → Set of users
const note = (spec, name, user) => {
  const key = `${spec}\0${name}`;
  if (!usedBy.has(key)) usedBy.set(key, new Set());
  usedBy.get(key).add(user);
};
for (const { dir, name: owner } of packages) {
  for (const top of ['src', 'test', 'bin', 'worker', 'scripts']) {
    for (const file of files(join(packagesDir, dir, top))) {
      for (const [spec, name] of importsOf(readFileSync(file, 'utf8'))) if (!spec.startsWith(`${owner}/`) && spec !== owner) note(spec, name, dir);
    }
  }
  const readme = join(packagesDir, dir, 'README.md');
  if (existsSync(readme) && !process.argv.includes('--no-readme')) {
    for (const block of readFileSync(readme, 'utf8').matchAll(/^```(?:js|ts)[^\n]*\n([\s\S]*?)^```$/gm)) {
      for (const [spec, name] of importsOf(block[1])) note(spec, name, spec === owner || spec.startsWith(`${owner}/`) ? `${dir} README` : dir);
    }
  }
}
for (const file of files(join(root, 'tools'))) for (const [spec, name] of importsOf(readFileSync(file, 'utf8'))) note(spec, name, 'tools');

const report = packages.map(({ name, entries }) => {
  let exported = 0;
  const unused = [];
  for (const [spec, names] of Object.entries(entries)) {
    for (const n of names) {
      exported++;
      if (!usedBy.has(`${spec}\0${n}`) && !usedBy.has(`${spec}\0*`)) unused.push(spec === name ? n : `${spec.slice(name.length + 1)}:${n}`);
    }
  }
  return { name, exported, used: exported - unused.length, unused };
});
if (process.argv.includes('--json')) console.log(JSON.stringify(report, null, 2));
else {
  for (const r of report) {
    console.log(`${r.name.padEnd(32)} exported ${String(r.exported).padStart(3)}  used outside ${String(r.used).padStart(3)}  unused ${String(r.unused.length).padStart(3)}`);
    if (process.argv.includes('--unused') && r.unused.length) console.log(`  ${r.unused.join(', ')}`);
  }
}
