// A throwaway npm registry for tests: Verdaccio (a root devDependency), run in the test's own process so that it
// ends with it, on 127.0.0.1 at a port the system picks, its storage and configuration in a folder of the caller's.
// @virnucpro packages are published to it and served only from it; every other package comes through it from
// `upstream`, the registry this machine's npm uses (read at run time: no registry host is written in the repository).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runServer } from 'verdaccio';

export interface LocalRegistry {
  /** `http://127.0.0.1:PORT/` */
  url: string;
  /** An npm user configuration with the registry, a token that may publish there, and no proxy for it. */
  npmrc: string;
  close(): Promise<void>;
}

export async function startLocalRegistry(dir: string, upstream: string): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  const proxy = process.env.HTTPS_PROXY ?? process.env.https_proxy;
  const config = {
    self_path: dir,
    storage: join(dir, 'storage'),
    auth: { htpasswd: { file: join(dir, 'htpasswd'), max_users: 1 } },
    // maxage: a package's metadata is fetched from upstream once a run, not again for each dependent.
    uplinks: { upstream: { url: upstream, timeout: '60s', maxage: '30m', ...(proxy ? { https_proxy: proxy } : {}) } },
    packages: {
      '@virnucpro/*': { access: '$all', publish: '$authenticated' }, // no proxy: ours come from here or nowhere
      '**': { access: '$all', proxy: 'upstream' },
    },
    web: { enable: false },
    middlewares: { audit: { enabled: false } },
    log: { type: 'stdout', format: 'pretty', level: 'error' },
  };
  const server = (await runServer(config as never)) as Server;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    // A throwaway user; the registry answers with the token npm publishes with.
    const response = await fetch(`${url}-/user/org.couchdb.user:test`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'test', password: 'test-only-password' }),
    });
    const { token } = (await response.json()) as { token?: string };
    if (!response.ok || !token) throw new Error(`the local registry gave no token (HTTP ${response.status})`);
    const npmrc = join(dir, 'npmrc');
    writeFileSync(npmrc, [`registry=${url}`, `${url.replace(/^http:/, '')}:_authToken=${token}`, 'noproxy=127.0.0.1', ''].join('\n'));
    return { url, npmrc, close };
  } catch (error) {
    await close();
    throw error;
  }
}
