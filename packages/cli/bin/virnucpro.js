#!/usr/bin/env node
// Thin launcher: the CLI bundled by `npm run build` (tools/release/bundle-cli.mjs) in ../bundle — one file per
// entry instead of ~800 modules, so a command starts in a third of the time.
import('../bundle/virnucpro.js').then((m) => m.main(process.argv.slice(2))).catch((err) => {
  if (err && err.code === 'ERR_MODULE_NOT_FOUND' && String(err.message).includes('bundle/virnucpro.js')) {
    console.error('virnucpro: the CLI is not built yet; run `npm run build` at the repository root.');
  } else {
    console.error(err);
  }
  process.exit(1);
});
