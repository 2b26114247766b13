// A vitest reporter that writes each test file's whole time — importing it, its hooks (a beforeAll that runs the
// CLI) and its tests — to .test-results/file-times.json. The JSON reporter's start and end span the tests alone,
// so a file whose work is in beforeAll shows ~0 s there. tools/run-tests.mjs sums these per package.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';

export default class FileTimesReporter {
  /** @type {{ file: string, seconds: number }[]} */
  times = [];

  onTestModuleEnd(testModule) {
    const d = testModule.diagnostic();
    const ms = d.prepareDuration + d.environmentSetupDuration + d.setupDuration + d.collectDuration + d.duration;
    this.times.push({ file: relative(process.cwd(), testModule.moduleId), seconds: ms / 1000 });
  }

  onTestRunEnd() {
    const path = '.test-results/file-times.json';
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(this.times, null, 1)}\n`);
  }
}
