// The command printed after Ctrl-C to continue a run (issue 48): the program as the user started it, every
// argument as given, less --force (it would discard the kept work), plus --resume; one line a shell takes as is.
// predict-resume.test.ts pastes the real hint into bash after a SIGINT.
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resumeCommand } from '../src/pipeline/resume-command.js';

const tmp = mkdtempSync(join(tmpdir(), 'resume-command-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// A fake installation: the script, a PATH folder linking `virnucpro` to it, a node_modules/.bin as npx runs it, a node.
const script = join(tmp, 'cli', 'bin', 'virnucpro.js');
const pathDir = join(tmp, 'path-bin');
const npxBin = join(tmp, 'project', 'node_modules', '.bin');
const node = join(tmp, 'node-dir', 'node');
for (const dir of [join(tmp, 'cli', 'bin'), pathDir, npxBin, join(tmp, 'node-dir')]) mkdirSync(dir, { recursive: true });
writeFileSync(script, '');
writeFileSync(node, '');
chmodSync(node, 0o755);
symlinkSync(script, join(pathDir, 'virnucpro'));
symlinkSync(script, join(npxBin, 'virnucpro'));

const args = ['predict', 'reads.fa', '--models-dir', 'my models', '--model-type', '300', '-o', 'out'];

describe('resumeCommand', () => {
  it('as run through node and the script: node (found on PATH) and the script path', () => {
    expect(resumeCommand({ argv: [node, script, ...args], execPath: node, env: { PATH: join(tmp, 'node-dir') } })).toBe(
      `node ${script} predict reads.fa --models-dir 'my models' --model-type 300 -o out --resume`,
    );
    // A node that PATH does not find is named by its path.
    expect(resumeCommand({ argv: [node, script, ...args], execPath: node, env: { PATH: '' } })).toMatch(new RegExp(`^${node} ${script} predict `));
  });

  it('as run by its name on PATH: that name', () => {
    expect(resumeCommand({ argv: [node, join(pathDir, 'virnucpro'), ...args], execPath: node, env: { PATH: pathDir } })).toBe(
      "virnucpro predict reads.fa --models-dir 'my models' --model-type 300 -o out --resume",
    );
  });

  it('as run by npx (npm sets npm_command; the script is in node_modules/.bin): npx and the name', () => {
    const env = { PATH: `${npxBin}:${pathDir}`, npm_command: 'exec' };
    expect(resumeCommand({ argv: [node, join(npxBin, 'virnucpro'), ...args], execPath: node, env })).toBe(
      "npx virnucpro predict reads.fa --models-dir 'my models' --model-type 300 -o out --resume",
    );
  });

  it('drops --force in every spelling (it would discard the kept work) and gives --resume once', () => {
    const env = { PATH: pathDir };
    const argv = (...extra: string[]) => [node, join(pathDir, 'virnucpro'), 'predict', 'a.fa', '-o', 'o', ...extra];
    for (const extra of [['--force'], ['-f'], ['--force=true'], ['--resume'], ['--no-force', '--resume=false']]) {
      expect(resumeCommand({ argv: argv(...extra), execPath: node, env }), extra.join(' ')).toBe('virnucpro predict a.fa -o o --resume');
    }
    expect(resumeCommand({ argv: argv('-qf'), execPath: node, env })).toBe('virnucpro predict a.fa -o o -q --resume');
  });

  it('quotes what a shell would split or expand', () => {
    const env = { PATH: pathDir };
    expect(resumeCommand({ argv: [node, join(pathDir, 'virnucpro'), 'predict', "it's here.fa", '-o', '$HOME/out*'], execPath: node, env })).toBe(
      `virnucpro predict 'it'\\''s here.fa' -o '$HOME/out*' --resume`,
    );
  });
});
