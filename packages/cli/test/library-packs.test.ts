// Reuse outside the monorepo (issue 28): every library package (each packages/* that is neither private nor the
// CLI) is packed with `npm pack`, unpacked into node_modules/@virnucpro/<name> of a fresh folder outside the
// workspace exactly as `npm install <tarball>` places a tarball's files, and each of its README's examples is run
// there as written: every ```js / ```ts block (TypeScript only has its types erased) except one fenced as a
// `fragment` (a sketch, e.g. a kernel that needs a GPU). So a file missing from a tarball's `files`, an export the
// README uses but the index does not give, or an example that does not run, fails here.
// Third-party dependencies: CI has no registry (npm's offline cache holds tarballs but no package lists, so
// `npm install --offline` cannot resolve a range), so the ones the packages declare are linked from the workspace's
// node_modules into the folder's (all at the top, as npm hoists them); one that no package declares is missing.
// The examples run in that folder (their outputs land there) and read the repository's fixtures as test-data/…
// (linked into it). About 20 s on 2 cores.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNodeAsync } from './cli-harness.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'library-packs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const project = join(tmp, 'project');

interface Manifest { name: string; private?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string> }
const libraries = readdirSync(join(repo, 'packages'))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(repo, 'packages', dir, 'package.json'), 'utf8')) as Manifest }))
  .filter(({ manifest }) => !manifest.private && manifest.name !== '@virnucpro/cli');

/** The README's runnable examples: fenced js/ts blocks not marked `fragment`. */
function examples(dir: string): { language: 'js' | 'ts'; code: string }[] {
  const readme = readFileSync(join(repo, 'packages', dir, 'README.md'), 'utf8');
  return [...readme.matchAll(/^```(js|ts)([^\n]*)\n([\s\S]*?)^```$/gm)]
    .filter((m) => !/\bfragment\b/.test(m[2]))
    .map((m) => ({ language: m[1] as 'js' | 'ts', code: m[3] }));
}

function runNode(file: string): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runNodeAsync([file], { cwd: project, env: { PATH: process.env.PATH, HOME: tmp, TMPDIR: process.env.TMPDIR } });
}

describe('every library package, packed and installed outside the workspace, runs its README examples', () => {
  beforeAll(() => {
    const tarballs = join(tmp, 'tarballs');
    mkdirSync(tarballs);
    mkdirSync(join(project, 'node_modules', '@virnucpro'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'outside', private: true, type: 'module' }));
    symlinkSync(join(repo, 'test-data'), join(project, 'test-data'));
    const thirdParty = new Set<string>();
    for (const { dir, manifest } of libraries) {
      const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', tarballs], { cwd: join(repo, 'packages', dir), encoding: 'utf8' })) as { filename: string }[];
      const target = join(project, 'node_modules', manifest.name);
      mkdirSync(target);
      execFileSync('tar', ['-xzf', join(tarballs, packed.filename), '--strip-components=1', '-C', target]);
      const declared = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies };
      for (const name of Object.keys(declared)) if (!name.startsWith('@virnucpro/')) thirdParty.add(name);
    }
    for (const name of thirdParty) {
      const source = join(repo, 'node_modules', name);
      if (!existsSync(source)) continue; // an optional dependency this machine does not have
      mkdirSync(dirname(join(project, 'node_modules', name)), { recursive: true });
      symlinkSync(source, join(project, 'node_modules', name));
    }
  }, 120_000);

  it('finds the library packages, and an example in every README', () => {
    expect(libraries.length).toBeGreaterThanOrEqual(13);
    const without = libraries.filter(({ dir }) => examples(dir).length === 0).map(({ manifest }) => manifest.name);
    expect(without).toEqual([]);
  });

  for (const { dir, manifest } of libraries) {
    for (const [n, example] of examples(dir).entries()) {
      it(`${manifest.name}: README example ${n + 1}`, async () => {
        const code = example.language === 'ts' ? transformSync(example.code, { loader: 'ts', format: 'esm' }).code : example.code;
        const file = join(project, `${dir}-example-${n + 1}.mjs`);
        writeFileSync(file, code);
        const r = await runNode(file);
        expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
      }, 120_000);
    }
  }
});
