// Most of this package's tests wait on the CLI processes they spawn (one core each at most), so two test files
// run at a time, even on a 2-core machine. The tests whose checks race a child process (a signal or kill -9 at a
// point of a run, a bound in seconds, a timer) run after them, one file at a time, with the machine to themselves.
import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

/** Test files that run alone (one fork, after the others): their checks race a child process or a clock. */
export const SERIAL = [
  'test/embed-interrupt.test.ts',
  'test/merge-memory.test.ts',
  'test/pipeline-trace.test.ts',
  'test/predict-in-process.test.ts',
  'test/predict-invariance-kill.test.ts',
  'test/predict-resume.test.ts',
  'test/predict-worker-kill.test.ts',
  'test/progress.test.ts',
  'test/resume-command.test.ts',
  'test/termination-signal.test.ts',
  'test/workflow-snakemake.test.ts',
];

/** The shared settings, with this project's name and files (the file lists replace the shared ones, not add to them). */
function project(name: string, files: { include?: string[]; exclude?: string[] }, test: Record<string, unknown>) {
  const config = mergeConfig(shared, defineConfig({ test: { name, ...test } }));
  return { ...config, test: { ...config.test, include: files.include ?? config.test!.include, exclude: files.exclude ?? configDefaults.exclude } };
}

export default mergeConfig(
  shared,
  defineConfig({
    test: {
      // vitest's default is one fork fewer than the cores: one on a 2-core machine.
      poolOptions: { forks: { maxForks: Math.max(2, availableParallelism() - 1) } },
      projects: [
        project('parallel', { exclude: [...configDefaults.exclude, ...SERIAL] }, { sequence: { groupOrder: 0 } }),
        project('serial', { include: SERIAL }, { poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 1 } }),
      ],
    },
  }),
);
