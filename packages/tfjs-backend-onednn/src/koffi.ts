// koffi is CommonJS; this is its one import site here, typed with the few calls the bindings use.
import { createRequire } from 'node:module';

export interface KoffiLibrary {
  func(prototype: string): (...args: unknown[]) => unknown;
}

export interface Koffi {
  load(path: string): KoffiLibrary;
  /** Address of a typed array's memory, its byteOffset included (stable: V8 never moves a backing store). */
  address(value: unknown): bigint;
}

let loaded: Koffi | undefined;

/** The file koffi loads from, for threads that load it themselves (row-workers.ts). */
export function koffiModulePath(): string {
  return createRequire(import.meta.url).resolve('koffi');
}

/** Loads koffi on first use, so importing the backend never fails on a machine without its native addon. */
export function koffi(): Koffi {
  loaded ??= createRequire(import.meta.url)('koffi') as Koffi;
  return loaded;
}
