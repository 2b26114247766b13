// Every package's tests in one vitest run (`npm test`, tools/run-tests.mjs): one scheduler keeps the cores busy
// until the last file (one file more than the cores: vitest.shared.ts), where one run per package (nx, two at a time) paid a vitest start per package and waited on
// each package's slowest file. Each package keeps its own vitest.config.ts (a package alone: `npx nx test
// @virnucpro/NAME`, or `npx vitest run --project NAME`). The CLI's files that race a child process or a clock run
// after all the others (its groups 1 and 2: packages/cli/vitest.config.ts).
import { defineConfig } from 'vitest/config';
import { oneFileMoreThanCores } from './vitest.shared.ts';
import { cliProjects } from './packages/cli/vitest.config.ts';

export default defineConfig({
  test: {
    ...oneFileMoreThanCores,
    projects: ['packages/*/vitest.config.ts', '!packages/cli/vitest.config.ts', ...cliProjects],
  },
});
