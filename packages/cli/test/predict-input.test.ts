// What `virnucpro predict` refuses before it loads a model or creates --out-dir (issue 15): not FASTA (empty,
// no '>' header, binary), not DNA, duplicate record ids. Through the built CLI; exit 2, one line on stderr.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, testData } from './cli-harness.js';

const tmp = mkdtempSync(join(tmpdir(), 'predict-input-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const common = ['--models-dir', join(testData, 'demo-models'), '--backend', 'cpu', '--quiet'];

function predictOn(name: string, content: string | Buffer, ...extra: string[]) {
  const input = join(tmp, name);
  writeFileSync(input, content);
  const out = join(tmp, `out-${name}`);
  const r = runCli(['predict', input, ...common, '--out-dir', out, ...extra]);
  return { ...r, input, out, lines: r.stderr.trim().split('\n') };
}

describe('virnucpro predict: input that is not FASTA', () => {
  it.each([
    ['empty.fa', '', /no FASTA records \(the file is empty\)/],
    ['no-header.fa', 'ACGTACGTAC\nGGTTAACC\n', /line 1: expected a FASTA header line starting with '>'/],
    ['binary.fa', Buffer.from([0x00, 0xff, 0xfe, 0x10, 0x80, 0x81, 0x3e, 0x0a, 0x00, 0x01]), /line 1.*binary data/],
  ])('%s: exit 2, one line naming the file, no output folder', (name, content, message) => {
    const r = predictOn(name, content);
    expect(r.status).toBe(2);
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toContain(r.input);
    expect(r.lines[0]).toMatch(message);
    expect(existsSync(r.out)).toBe(false);
  });
});
