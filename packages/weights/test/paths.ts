// Fixture locations (copies of /work/shared/fixtures, see test-data/weights/README.md).
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const TEST_DATA = fileURLToPath(new URL('../../../test-data/weights/', import.meta.url));
export const fixture = (...parts: string[]) => join(TEST_DATA, ...parts);
