import { commandLine, thisProcess, type Invocation } from '../command-line.js';

/**
 * The command that continues an interrupted run: the program as it was invoked, then its arguments as given
 * (input, --out-dir, --models-dir, --model-type, --precision, --shard, --config …: everything that identifies
 * the run), less --force, which would discard the kept work, and --resume, added once at the end. One
 * shell-quoted line, to paste in the same folder.
 */
export function resumeCommand(invocation: Invocation = thisProcess()): string {
  return commandLine([...invocation.argv.slice(2).flatMap(withoutForceOrResume), '--resume'], invocation);
}

/** An argument less --force / --resume (in any spelling, also inside a group of short flags such as -qf). */
function withoutForceOrResume(arg: string): string[] {
  if (/^--(no-)?(force|resume)(=.*)?$/.test(arg)) return [];
  if (/^-[a-zA-Z]+$/.test(arg) && arg.includes('f')) return arg === '-f' ? [] : [arg.replace(/f/g, '')];
  return [arg];
}
