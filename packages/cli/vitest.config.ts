// Most of this package's tests wait on the CLI processes they spawn (one core each at most), so two test files
// run at a time, even on a 2-core machine. Tests that race a child process run after them: first those that kill or
// signal a run once it has done a share of its work (they wait on the run's progress, not on a clock, and were
// stable under a load of 8-10 on 2 cores), as many files at a time as the other groups, with no other load; then those with a bound in
// seconds (a signal must end the run within 2 s), timers or memory samples, one file at a time, with the machine
// to themselves.
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import shared, { twoFilesAtATime } from '../../vitest.shared.ts';

/** Kills and signals on a run's progress: after the other files, several at a time. */
export const AFTER = [
  'test/predict-in-process-kill.test.ts',
  'test/predict-invariance-kill.test.ts',
  'test/predict-resume.test.ts',
  'test/predict-worker-kill.test.ts',
  'test/workflow-snakemake.test.ts',
];

/** Bounds in seconds, timers, memory samples: last, one file at a time. */
export const ALONE = [
  'test/embed-interrupt.test.ts',
  'test/merge-memory.test.ts',
  'test/pipeline-trace.test.ts',
  'test/predict-count-beside-signal.test.ts',
  'test/predict-in-process.test.ts',
  'test/predict-memory.test.ts',
  'test/progress.test.ts',
  'test/resume-command.test.ts',
  'test/termination-signal.test.ts',
];

/** This package's folder: the projects' root when the repository's vitest.config.ts runs them with the others. */
const root = fileURLToPath(new URL('.', import.meta.url));

/** The shared settings, with this project's name and files (the file lists replace the shared ones, not add to them). */
function project(name: string, files: { include?: string[]; exclude?: string[] }, test: Record<string, unknown>) {
  const config = mergeConfig(shared, defineConfig({ root, test: { name, ...test } }));
  return { ...config, test: { ...config.test, include: files.include ?? config.test!.include, exclude: files.exclude ?? configDefaults.exclude } };
}

/** The CLI's three groups, in order (also run by the repository's vitest.config.ts, after the other packages' files). */
export const cliProjects = [
  project('cli', { exclude: [...configDefaults.exclude, ...AFTER, ...ALONE] }, { sequence: { groupOrder: 0 } }),
  project('cli (after)', { include: AFTER }, { sequence: { groupOrder: 1 } }),
  project('cli (alone)', { include: ALONE }, { poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 2 } }),
];

export default mergeConfig(shared, defineConfig({ test: { ...twoFilesAtATime, projects: cliProjects } }));
