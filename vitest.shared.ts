// Shared vitest settings. Tests resolve sibling packages to their TypeScript
// sources through the "@virnucpro/source" export condition, so a test run
// never depends on a stale dist/ of another package.
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
