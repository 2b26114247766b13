#!/usr/bin/env node
// Runs every package's tests through nx, then prints one closing line that
// CI can read: "tests: N passed, M failed, K skipped".
// Extra arguments are passed to nx (e.g. --projects=@virnucpro/sixframe).
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

// By default two passes: every package but the CLI two at a time (each starts nx's task and vitest, and ends on its
// slowest file: a second package fills those seconds), then the CLI alone (its files spawn CLI processes two at a
// time, and some of them must have the machine to themselves: packages/cli/vitest.config.ts).
const extra = process.argv.slice(2);
const passes = extra.length > 0
  ? [['--parallel=1', ...extra]]
  : [['--parallel=2', '--exclude=@virnucpro/cli'], ['--parallel=1', '--projects=@virnucpro/cli']];
const started = performance.now();
let run = { status: 0 };
for (const pass of passes) {
  const result = spawnSync('npx', ['nx', 'run-many', '-t', 'test', '--outputStyle=stream', ...pass], { stdio: 'inherit', env: { NX_TUI: 'false', ...process.env } });
  if (result.status !== 0) run = result;
}
// The whole command's time (nx and each package's vitest start included), beside the packages' own times below.
const wallSeconds = (performance.now() - started) / 1000;

let passed = 0, failed = 0, skipped = 0, suitesFailed = 0;
/** Each package's wall time, from its run's start to its last test file's end (vitest's JSON report). */
const times = [];
for (const dir of readdirSync('packages')) {
  const report = join('packages', dir, '.test-results', 'vitest.json');
  if (!existsSync(report)) continue;
  const r = JSON.parse(readFileSync(report, 'utf8'));
  const end = Math.max(r.startTime, ...(r.testResults ?? []).map((t) => t.endTime ?? 0));
  times.push([dir, (end - r.startTime) / 1000]);
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A test file that failed to load has failed suites but no failed tests.
  if (!r.numFailedTests) suitesFailed += r.numFailedTestSuites ?? 0;
}
// Where the suite's time goes: the slowest packages first.
for (const [dir, seconds] of times.sort((a, b) => b[1] - a[1])) console.log(`  ${seconds.toFixed(1).padStart(7)} s  ${dir}`);
console.log(`  ${times.reduce((sum, [, s]) => sum + s, 0).toFixed(1).padStart(7)} s  all packages`);
console.log(`  ${wallSeconds.toFixed(1).padStart(7)} s  npm test, wall (nx and each package's vitest start included; the packages but the CLI two at a time)`);
if (suitesFailed) console.log(`(${suitesFailed} test files failed to run)`);
console.log(`tests: ${passed} passed, ${failed + suitesFailed} failed, ${skipped} skipped`);
process.exit(run.status ?? 1);
