import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * The one temporary-name scheme of every file written atomically: `.<name>.<pid>.<8 hex>.tmp` beside the
 * target. Hidden (a leading dot), so a listing of results never shows it as one; the writer's pid, so a
 * later run can tell the leftovers of a killed process from a live writer's; random, so two writers of one
 * target never collide.
 */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
}

const TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** The target's name and the writer's pid of a temporary file name made by tempPathFor, else null. */
export function parseTempName(name: string): { target: string; pid: number } | null {
  const match = TEMP_NAME.exec(name);
  return match ? { target: match[1], pid: Number(match[2]) } : null;
}
