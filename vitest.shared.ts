// Shared vitest settings. Tests resolve sibling packages to their TypeScript
// sources through the "@virnucpro/source" export condition, so a test run
// never depends on a stale dist/ of another package.
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { conditions: ['@virnucpro/source'] },
  ssr: { resolve: { conditions: ['@virnucpro/source'] } },
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
    passWithNoTests: true, // TODO(scaffold): remove once every package has tests
  },
});

/**
 * For a package whose test files neither race a child process nor hold a bound in seconds (they compute, or wait on
 * what they spawn): two files at a time, even on a 2-core machine, where vitest's default is one fork (one fewer
 * than the cores). `mergeConfig(shared, defineConfig({ test: twoFilesAtATime }))` in its vitest.config.ts.
 */
export const twoFilesAtATime = { poolOptions: { forks: { maxForks: Math.max(2, availableParallelism() - 1) } } };

/**
 * For the repository's one run of every package (vitest.config.ts): one file more than the cores. Many files spend
 * part of their time waiting (on a child process starting or exiting, a registry, a browser, a run's progress), and
 * with only as many files as cores a core idled through each wait: on the 2-core CI machine the files' own times
 * summed to ~1,060 s where the whole run used ~950 CPU-seconds. vitest's forks pool takes this from the root config
 * only (a project's own maxForks is ignored in a run of several projects).
 */
export const oneFileMoreThanCores = { poolOptions: { forks: { maxForks: availableParallelism() + 1 } } };
