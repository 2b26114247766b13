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
