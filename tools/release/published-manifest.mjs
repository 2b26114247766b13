// The package.json that goes into a library package's tarball: the package's own, less the `@virnucpro/source`
// export condition. That condition points the repository's tests at src/*.ts, which is not published; a consumer
// that enabled a condition of that name would resolve to a missing file, so the tarball does not carry it.

const SOURCE_CONDITION = '@virnucpro/source';

/** @param {Record<string, any>} manifest */
export function publishedManifest(manifest) {
  return { ...manifest, exports: withoutCondition(manifest.exports) };
}

function withoutCondition(target) {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return target;
  return Object.fromEntries(Object.entries(target).filter(([key]) => key !== SOURCE_CONDITION).map(([key, value]) => [key, withoutCondition(value)]));
}

/** Every file path a manifest's `main`, `types` and `exports` name (to check that the tarball has each). */
export function entryFiles(manifest) {
  const files = new Set([manifest.main, manifest.types].filter(Boolean));
  const walk = (target) => {
    if (typeof target === 'string') files.add(target);
    else if (target && typeof target === 'object') for (const value of Object.values(target)) walk(value);
  };
  walk(manifest.exports);
  return [...files].map((file) => file.replace(/^\.\//, ''));
}
