// The project files users look for (issue 29): LICENSE as package.json says, a CITATION.cff that citation tools
// can read (CFF 1.2.0 keys, VirNucPro's paper as the preferred citation), a CHANGELOG kept from now on.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../../../', import.meta.url).pathname;
const read = (file: string) => readFileSync(join(root, file), 'utf8');

describe('project files', () => {
  it('LICENSE is the MIT licence that package.json and CITATION.cff name', () => {
    const license = (JSON.parse(read('package.json')) as { license: string }).license;
    expect(license).toBe('MIT');
    expect(read('LICENSE')).toMatch(/^MIT License\n\nCopyright \(c\) \d{4} .+\n\nPermission is hereby granted, free of charge/);
    expect((parse(read('CITATION.cff')) as { license: string }).license).toBe(license);
  });

  it('CITATION.cff has the keys CFF 1.2.0 requires and cites the VirNucPro paper by its DOI', () => {
    const cff = parse(read('CITATION.cff')) as Record<string, unknown> & { authors: unknown[]; 'preferred-citation': { doi: string; title: string; authors: unknown[] } };
    for (const key of ['cff-version', 'message', 'title', 'authors']) expect(cff, key).toHaveProperty(key);
    expect(cff['cff-version']).toBe('1.2.0');
    expect(cff.authors.length).toBeGreaterThan(0);
    expect(cff.version).toBe((JSON.parse(read('package.json')) as { version: string }).version);
    expect(cff['preferred-citation'].doi).toBe('10.1093/bib/bbaf224');
    expect(cff['preferred-citation'].title).toMatch(/^VirNucPro/);
  });

  it('CHANGELOG.md has an Unreleased section with entries, newest first', () => {
    const changelog = read('CHANGELOG.md');
    const unreleased = changelog.indexOf('\n## Unreleased\n');
    expect(unreleased).toBeGreaterThan(0);
    const next = changelog.indexOf('\n## ', unreleased + 1);
    expect(changelog.slice(unreleased, next === -1 ? undefined : next)).toMatch(/\n- \S/);
  });
});
