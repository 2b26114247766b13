// Commands the CLI prints for the user to paste (a resume after Ctrl-C, a download for missing models): they start the
// program the way this process was started, so they work in the same shell whether it was `npx virnucpro`, an
// installed `virnucpro` or `node path/to/virnucpro.js`.
import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, sep } from 'node:path';
import { shellWord } from './shell-word.js';

/** How this process was started: what a pasted command needs to start it again the same way. */
export interface Invocation {
  /** process.argv: node, the script, then the arguments as given. */
  argv: readonly string[];
  /** process.execPath. */
  execPath: string;
  /** process.env (PATH, and npm's variables under npx). */
  env: NodeJS.ProcessEnv;
}

export function thisProcess(): Invocation {
  return { argv: process.argv, execPath: process.execPath, env: process.env };
}

/** `args` after the program as it was invoked: one shell-quoted line. */
export function commandLine(args: readonly string[], invocation: Invocation = thisProcess()): string {
  return [...programAsInvoked(invocation), ...args].map(shellWord).join(' ');
}

/**
 * The words that start the program as the user did: `npx virnucpro` when npm ran it from a node_modules/.bin,
 * its name when that name on PATH is this script, else node (by name if PATH finds this node) and the script's path.
 */
function programAsInvoked({ argv, execPath, env }: Invocation): string[] {
  const script = argv[1] ?? '';
  const name = basename(script);
  if (env.npm_command !== undefined && dirname(script).endsWith(`node_modules${sep}.bin`)) return ['npx', name];
  if (sameFile(onPath(name, env.PATH), script)) return [name];
  return [sameFile(onPath('node', env.PATH), execPath) ? 'node' : execPath, script];
}

/** Where a shell finds `name` on `path`, if it does. */
function onPath(name: string, path: string | undefined): string | undefined {
  if (!name) return undefined;
  for (const dir of (path ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function sameFile(a: string | undefined, b: string): boolean {
  try {
    return a !== undefined && realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}
