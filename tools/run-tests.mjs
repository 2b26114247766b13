#!/usr/bin/env node
// Runs every package's tests through nx, then prints one closing line that
// CI can read: "tests: N passed, M failed, K skipped".
// Extra arguments are passed to nx (e.g. --projects=@virnucpro/sixframe).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const args = ['nx', 'run-many', '-t', 'test', '--parallel=1', '--outputStyle=stream', ...process.argv.slice(2)];
const run = spawnSync('npx', args, { stdio: 'inherit', env: { NX_TUI: 'false', ...process.env } });

let passed = 0, failed = 0, skipped = 0, suitesFailed = 0;
for (const dir of readdirSync('packages')) {
  const report = join('packages', dir, '.test-results', 'vitest.json');
  if (!existsSync(report)) continue;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A test file that failed to load has failed suites but no failed tests.
  if (!r.numFailedTests) suitesFailed += r.numFailedTestSuites ?? 0;
}
if (suitesFailed) console.log(`(${suitesFailed} test files failed to run)`);
console.log(`tests: ${passed} passed, ${failed + suitesFailed} failed, ${skipped} skipped`);
process.exit(run.status ?? 1);
