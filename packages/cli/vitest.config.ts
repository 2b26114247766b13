// Most of this package's tests wait on the CLI processes they spawn (one core each at most), so two test files
// run at a time, even on a 2-core machine. Tests that race a child process run after them: first those whose
// races have a wide margin (a kill -9 or signal once the run has done a share of its work, seconds before its end),
// two files at a time, with no other load; then those with a narrow margin or a bound in seconds (a signal must
// end the run within 2 s, a kill within the last tenth of a run, a timer, a memory sample), one file at a time,
// with the machine to themselves.
import { configDefaults, defineConfig, mergeConfig } from 'vitest/config';
import shared, { twoFilesAtATime } from '../../vitest.shared.ts';

/** Races with a wide margin: after the other files, two at a time. */
export const AFTER = ['test/predict-resume.test.ts', 'test/predict-worker-kill.test.ts', 'test/workflow-snakemake.test.ts'];

/** Narrow margins, bounds in seconds, timers, memory samples: last, one file at a time. */
export const ALONE = [
  'test/embed-interrupt.test.ts',
  'test/merge-memory.test.ts',
  'test/pipeline-trace.test.ts',
  'test/predict-in-process.test.ts',
  'test/predict-invariance-kill.test.ts',
  'test/progress.test.ts',
  'test/resume-command.test.ts',
  'test/termination-signal.test.ts',
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
      ...twoFilesAtATime,
      projects: [
        project('parallel', { exclude: [...configDefaults.exclude, ...AFTER, ...ALONE] }, { sequence: { groupOrder: 0 } }),
        project('after', { include: AFTER }, { sequence: { groupOrder: 1 } }),
        project('alone', { include: ALONE }, { poolOptions: { forks: { singleFork: true } }, sequence: { groupOrder: 2 } }),
      ],
    },
  }),
);
