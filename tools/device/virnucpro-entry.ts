// Entry for a bundled `virnucpro` on the GPU machine (no node_modules there); same as bin/virnucpro.js.
// In-process runs only (--workers 0): worker processes need the package layout of packages/runtime.
import { main } from '@virnucpro/cli';

await main(process.argv.slice(2));
