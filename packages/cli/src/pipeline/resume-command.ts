import { existsSync, realpathSync } from 'node:fs';
import { basename, delimiter, dirname, join, sep } from 'node:path';
import { shellWord } from '../shell-word.js';

/** How this process was started: what a pasted command needs to start it again the same way. */
export interface Invocation {
  /** process.argv: node, the script, then the arguments as given. */
  argv: readonly string[];
  /** process.execPath. */
  execPath: string;
  /** process.env (PATH, and npm's variables under npx). */
  env: NodeJS.ProcessEnv;
}

/**
 * The command that continues an interrupted run: the program as it was invoked, then its arguments as given
 * (input, --out-dir, --models-dir, --model-type, --precision, --shard, --config …: everything that identifies
 * the run), less --force, which would discard the kept work, and --resume, added once at the end. One
 * shell-quoted line, to paste in the same folder.
 */
export function resumeCommand(invocation: Invocation = { argv: process.argv, execPath: process.execPath, env: process.env }): string {
  const args = invocation.argv.slice(2).flatMap(withoutForceOrResume);
  return [...programAsInvoked(invocation), ...args, '--resume'].map(shellWord).join(' ');
}

/** An argument less --force / --resume (in any spelling, also inside a group of short flags such as -qf). */
function withoutForceOrResume(arg: string): string[] {
  if (/^--(no-)?(force|resume)(=.*)?$/.test(arg)) return [];
  if (/^-[a-zA-Z]+$/.test(arg) && arg.includes('f')) return arg === '-f' ? [] : [arg.replace(/f/g, '')];
  return [arg];
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
