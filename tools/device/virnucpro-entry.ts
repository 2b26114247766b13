// Entry for a bundled `virnucpro` on the GPU machine (no node_modules there); same as bin/virnucpro.js.
// Every mode needs the layout of a worker (the default runs the models in a worker thread): bundle
// packages/predict/src/features-worker.ts too and see run-predict-bench.sh for the two files to place.
import { main } from '@virnucpro/cli';

await main(process.argv.slice(2));
