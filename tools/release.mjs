#!/usr/bin/env node
// Releases the library packages (every packages/* but the CLI and the private ones) together:
//   node tools/release.mjs [--out DIR] [--registry URL] [--json] [@virnucpro/NAME …]
// packs each into DIR (default: packs/ at the repository root; never inside packages/) and, with --registry,
// publishes the tarballs there one by one in dependency order (npm publish; the registry's credentials come from
// your npm configuration). Names limit the release to those packages and the @virnucpro packages they need.
// Prints the tarballs' paths on stdout, one a line in dependency order (--json: [{ name, version, dir, tarball }]),
// so that, from another project,
//   npm install $(node path/to/virnucpro-ts/tools/release.mjs --out virnucpro-packs @virnucpro/sixframe)
// installs a package and its @virnucpro dependencies without a registry that has them.
//   node tools/release.mjs --list   the library packages in dependency order, as JSON ({ name, version, dir })
// Needs a build (npm run build): dist/ is packed as it is, and a missing entry point stops the release. Before
// packing, every library manifest is checked (release/manifest-problems.mjs); each tarball carries the manifest
// release/published-manifest.mjs makes and the repository's LICENSE.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { dependencyOrder, libraryPackages, withDependencies } from './release/library-packages.mjs';
import { manifestProblems } from './release/manifest-problems.mjs';
import { packDestination } from './release/pack-destination.mjs';
import { entryFiles, publishedManifest } from './release/published-manifest.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A reason to stop, one line each; printed without a stack. */
class ReleaseError extends Error {
  constructor(lines) {
    super(lines.join('\n'));
    this.lines = lines;
  }
}

/** `fn()`, its error (a wrong name, a cycle, a folder inside packages/) as a ReleaseError. */
function expected(fn) {
  try {
    return fn();
  } catch (error) {
    throw new ReleaseError([error.message]);
  }
}

/** Runs npm; its own output goes to stderr, so stdout carries only this script's answer. */
function npm(args, cwd, { capture = false } = {}) {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', capture ? 'pipe' : 2, 2], maxBuffer: 64 << 20 });
}

/**
 * Packs `release` (library packages in dependency order) into `out`, each from a staged copy of exactly what npm
 * would pack from its folder, with the published manifest and the LICENSE. @returns the tarballs, in that order
 */
function pack(release, out) {
  const listed = JSON.parse(npm(['pack', '--dry-run', '--json', ...release.flatMap(({ dir }) => ['--workspace', `packages/${dir}`])], root, { capture: true }));
  const staging = mkdtempSync(join(tmpdir(), 'virnucpro-release-'));
  try {
    const missing = [];
    for (const { dir, path, manifest } of release) {
      const files = listed.find((l) => l.name === manifest.name).files.map((f) => f.path);
      const published = publishedManifest(manifest);
      for (const file of entryFiles(published)) if (!files.includes(file)) missing.push(`${manifest.name}: ${file} is not in the package (not built? npm run build)`);
      const stage = join(staging, dir);
      for (const file of files) cpSync(join(path, file), join(stage, file));
      writeFileSync(join(stage, 'package.json'), JSON.stringify(published, null, 2) + '\n');
      if (!existsSync(join(stage, 'LICENSE'))) cpSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
    }
    if (missing.length) throw new ReleaseError(missing);
    mkdirSync(out, { recursive: true });
    const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', out, ...release.map(({ dir }) => join(staging, dir))], staging, { capture: true }));
    return release.map(({ dir, manifest: { name, version } }) => ({ name, version, dir, tarball: join(out, packed.find((p) => p.name === name).filename) }));
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function main() {
  const { values: options, positionals: names } = parseArgs({
    options: {
      out: { type: 'string', default: join(root, 'packs') },
      registry: { type: 'string' },
      json: { type: 'boolean', default: false },
      list: { type: 'boolean', default: false },
    },
    allowPositionals: true,
  });
  const libraries = libraryPackages(root);
  const release = expected(() => dependencyOrder(names.length ? withDependencies(libraries, names) : libraries));
  if (options.list) return JSON.stringify(release.map(({ dir, manifest: { name, version } }) => ({ name, version, dir })), null, 2);

  const problems = manifestProblems(libraries, JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  if (problems.length) throw new ReleaseError(problems);
  const out = expected(() => packDestination(root, options.out));
  const tarballs = pack(release, out);
  if (options.registry) {
    // One at a time, in dependency order; --access public because a scoped package is restricted by default.
    for (const { tarball } of tarballs) npm(['publish', tarball, '--registry', options.registry, '--access', 'public'], out);
  }
  return options.json ? JSON.stringify(tarballs, null, 2) : tarballs.map((t) => t.tarball).join('\n');
}

try {
  console.log(main());
} catch (error) {
  if (!(error instanceof ReleaseError)) throw error;
  for (const line of error.lines) console.error(`release: ${line}`);
  process.exit(1);
}
