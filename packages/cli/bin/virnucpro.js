#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in ../dist (run `npm run build` first).
import('../dist/main.js').then((m) => m.main(process.argv.slice(2))).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('dist/main.js')) {
    console.error('virnucpro: the CLI is not built yet; run `npm run build` at the repository root.');
  } else {
    console.error(err);
  }
  process.exit(1);
});
