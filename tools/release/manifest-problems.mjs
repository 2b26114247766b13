// What a library package's manifest must say before it can be published: the fields a registry and a consumer's
// npm read, and @virnucpro dependencies that a registry can resolve (an exact published version of a library
// package; never a range such as * or workspace:, never a private or unpublished package).

/**
 * Every problem of the library manifests, one line each (empty when all can be published).
 * @param {{ dir: string, manifest: Record<string, any> }[]} packages every library package
 * @param {Record<string, any>} rootManifest the repository's package.json (license and repository come from it)
 */
export function manifestProblems(packages, rootManifest) {
  const problems = [];
  const versions = new Map(packages.map(({ manifest }) => [manifest.name, manifest.version]));
  // One version for all: the packages are released together, and each pins its siblings to it.
  const version = packages[0]?.manifest.version;
  for (const { dir, manifest: m } of packages) {
    const say = (text) => problems.push(`${m.name} (packages/${dir}/package.json): ${text}`);
    if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(m.version ?? '')) say(`version ${JSON.stringify(m.version)} is not a plain semver version`);
    if (m.version !== version) say(`version ${m.version} differs from ${packages[0].manifest.name}'s ${version}: the library packages are released together`);
    if (m.type !== 'module') say('"type" must be "module"');
    if (m.license !== rootManifest.license) say(`"license" must be the repository's (${rootManifest.license})`);
    if (!m.engines?.node) say('"engines.node" is missing');
    if (m.repository?.url !== rootManifest.repository?.url || m.repository?.directory !== `packages/${dir}`)
      say(`"repository" must be the repository's url with "directory": "packages/${dir}"`);
    if (!Array.isArray(m.files) || !m.files.includes('dist')) say('"files" must list what is published (dist at least)');
    if (!m.exports?.['.']) say('"exports" has no "." entry');
    for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
      for (const [name, range] of Object.entries(m[field] ?? {})) {
        if (!name.startsWith('@virnucpro/')) continue;
        if (!versions.has(name)) say(`${field} names ${name}, which is not a published library package`);
        else if (range !== versions.get(name)) say(`${field} ${name}: ${JSON.stringify(range)}, expected its version ${versions.get(name)} (a registry must resolve it)`);
      }
    }
  }
  return problems;
}
