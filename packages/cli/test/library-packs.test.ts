// Reuse outside the monorepo (issues 28, 48): every library package (each packages/* that is neither private nor the
// CLI) is published, as tools/release.mjs packs and publishes them, to a local npm registry (./local-registry.ts),
// installed by name with `npm install` into an empty folder outside the workspace, and each of its README's
// examples is run there as written: every ```js / ```ts block (TypeScript only has its types erased) except one
// fenced as a `fragment` (a sketch, e.g. a kernel that needs a GPU). So a dependency a registry cannot resolve, a
// file missing from a tarball, an export the README uses but the index does not give, or an example that does not
// run, fails here; and so does a README whose install commands do not name every package its examples import (or
// a dependency of one), which a shared folder would otherwise hide.
// Third-party packages come through the local registry from the one this machine's npm uses (CI reaches it). When
// that one does not answer, the test is skipped and says why, except in CI (CI=true), where it fails.
// The examples run in that folder (their outputs land there) and read the repository's fixtures as test-data/…
// (linked into it). 45–80 s on 2 cores (the more other work, the longer), ~50 s of CPU, most of it npm: publishing
// 15 packages one by one, then resolving ~100 packages through the local registry and unpacking ~250 MB.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodeAsync } from './cli-harness.js';
import { startLocalRegistry, type LocalRegistry } from './local-registry.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const release = join(repo, 'tools/release.mjs');

interface Library { name: string; version: string; dir: string }
const libraries = JSON.parse(execFileSync(process.execPath, [release, '--list'], { encoding: 'utf8' })) as Library[];

/** The README's runnable examples: fenced js/ts blocks not marked `fragment`. */
function examples(dir: string): { language: 'js' | 'ts'; code: string }[] {
  return [...readme(dir).matchAll(/^```(js|ts)([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => !/\bfragment\b/.test(m[2]))
    .map((m) => ({ language: m[1] as 'js' | 'ts', code: m[3] }));
}

function readme(dir: string): string {
  return readFileSync(join(repo, 'packages', dir, 'README.md'), 'utf8');
}

/** The packages an example imports by name (`@scope/name` or `name`, without a subpath; `node:` excluded). */
function importedPackages(code: string): string[] {
  const specifiers = [...code.matchAll(/(?:\bfrom|\bimport\s*\(|^import)\s*(['"])([^'"\n]+)\1/gm)].map((m) => m[2]);
  return specifiers.filter((s) => !/^(\.|\/|node:)/.test(s)).map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/'));
}

/**
 * A README's two install commands: `npm install NAME…` (from a registry) and `npm install $(node …/tools/release.mjs
 * --out DIR @virnucpro/NAME…) [NAME…]` (from a clone); the names each installs, or undefined where there is none.
 */
function installCommands(dir: string): { registry?: string[]; clone?: string[] } {
  const text = readme(dir);
  const names = (m: RegExpExecArray | null) => m?.slice(1).join(' ').trim().split(/\s+/);
  return {
    registry: names(/^npm install ((?:@?[\w.-]+(?:\/[\w.-]+)? ?)+)$/m.exec(text)),
    clone: names(/^npm install \$\(node \S*tools\/release\.mjs --out \S+((?: @virnucpro\/[\w.-]+)+)\)((?: \S+)*)$/m.exec(text)),
  };
}

// The registry this machine's npm uses, asked at run time outside the workspace (no registry host is written in
// the repository).
const upstream = execFileSync('npm', ['config', 'get', 'registry'], { cwd: tmpdir(), encoding: 'utf8' }).trim();
const unreachable = await fetch(new URL('-/ping', upstream), { signal: AbortSignal.timeout(15_000) }).then(
  () => undefined,
  (error: Error & { cause?: Error }) => `${upstream} did not answer (${error.cause?.message ?? error.message})`,
);
const inCi = process.env.CI === 'true';
if (unreachable && !inCi) console.warn(`library-packs.test.ts is skipped: ${unreachable}; it needs the registry npm uses (CI fails instead)`);

const run = promisify(execFile); // asynchronous: the registry answers npm from this process's event loop

describe.skipIf(unreachable !== undefined && !inCi)('every library package, published to a registry and installed by name outside the workspace, runs its README examples', () => {
  let tmp = '';
  let project = '';
  let registry: LocalRegistry | undefined;
  afterAll(async () => {
    await registry?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  beforeAll(async () => {
    if (unreachable) throw new Error(`CI reaches the npm registry, but ${unreachable}`);
    tmp = mkdtempSync(join(tmpdir(), 'library-packs-'));
    project = join(tmp, 'project');
    registry = await startLocalRegistry(join(tmp, 'registry'), upstream);
    // npm sees only this configuration: not the caller's user configuration nor the npm_config_* of `npm test`.
    const env = {
      ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_config_/i.test(key))),
      npm_config_userconfig: registry.npmrc,
      npm_config_cache: join(tmp, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_omit_lockfile_registry_resolved: 'false', // the lock says where each package came from
    };
    const options = { env, encoding: 'utf8' as const, maxBuffer: 64 << 20 };
    await run(process.execPath, [release, '--out', join(tmp, 'packs'), '--registry', registry.url], { ...options, cwd: repo, timeout: 120_000 });
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'outside', private: true, type: 'module' }));
    symlinkSync(join(repo, 'test-data'), join(project, 'test-data'));
    // Every library package by name, and whatever else a README's install command names. --ignore-scripts: no
    // library package has an install script, and third-party ones are not what this tests.
    const names = new Set([...libraries.map((l) => l.name), ...libraries.flatMap(({ dir }) => installCommands(dir).registry ?? [])]);
    await run('npm', ['install', '--registry', registry.url, '--ignore-scripts', ...names], { ...options, cwd: project, timeout: 240_000 });
  }, 420_000);

  it('installs every library package from the local registry, third-party packages through it', () => {
    expect(libraries.length).toBeGreaterThanOrEqual(13);
    for (const { name, version } of libraries) {
      expect((JSON.parse(readFileSync(join(project, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version, name).toBe(version);
    }
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    const elsewhere = Object.entries(lock.packages).filter(([path, p]) => path && !p.resolved?.startsWith(registry!.url));
    expect(elsewhere.map(([path]) => path)).toEqual([]);
  });

  it("names in each README's install commands every package its examples import (or a dependency of one)", () => {
    const problems: string[] = [];
    for (const { name, dir } of libraries) {
      const { registry: install, clone } = installCommands(dir);
      if (!install?.includes(name)) {
        problems.push(`${name}: no \`npm install ${name}\` line`);
        continue;
      }
      if (clone?.join(' ') !== install.join(' ')) problems.push(`${name}: the tools/release.mjs command names ${clone?.join(' ') ?? 'nothing'}, not ${install.join(' ')}`);
      const available = new Set(install);
      for (const installed of install) {
        const manifest = join(project, 'node_modules', installed, 'package.json');
        if (!existsSync(manifest)) continue;
        const m = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, Record<string, string> | undefined>;
        for (const dep of Object.keys({ ...m.dependencies, ...m.optionalDependencies, ...m.peerDependencies })) available.add(dep);
      }
      const imported = new Set(examples(dir).flatMap((e) => importedPackages(e.code)));
      for (const pkg of imported) if (!available.has(pkg)) problems.push(`${name}: its examples import ${pkg}`);
    }
    expect(problems).toEqual([]);
  });

  it('finds an example in every README', () => {
    expect(libraries.filter(({ dir }) => examples(dir).length === 0).map(({ name }) => name)).toEqual([]);
  });

  for (const { name, dir } of libraries) {
    for (const [n, example] of examples(dir).entries()) {
      it(`${name}: README example ${n + 1}`, async () => {
        const code = example.language === 'ts' ? transformSync(example.code, { loader: 'ts', format: 'esm' }).code : example.code;
        const file = join(project, `${dir}-example-${n + 1}.mjs`);
        writeFileSync(file, code);
        const r = await runNodeAsync([file], { cwd: project, env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: process.env.TMPDIR } });
        expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      }, 120_000);
    }
  }
});
