import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const bin = fileURLToPath(new URL('../bin/virnucpro.js', import.meta.url));

describe('virnucpro --help', () => {
  it('prints usage and exits 0', () => {
    const r = spawnSync(process.execPath, [bin, '--help'], { encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('virnucpro <command>');
  });
  it('rejects an unknown command with exit code 2', () => {
    const r = spawnSync(process.execPath, [bin, 'no-such-command'], { encoding: 'utf8' });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown|command/i);
  });
});
