// koffi is CommonJS; this is its one import site, typed with the few calls the bindings use.
import { createRequire } from 'node:module';
import { hostTrace } from './host-trace.js';

export interface KoffiLibrary {
  func(prototype: string): (...args: unknown[]) => unknown;
}

export interface Koffi {
  load(path: string): KoffiLibrary;
  /** Address of a Buffer's or typed array's memory (stable: V8 never moves an ArrayBuffer's backing store). */
  address(value: unknown): bigint;
  /** An ArrayBuffer over unmanaged memory (no copy). */
  view(pointer: bigint | number, length: number): ArrayBuffer;
  decode(pointer: unknown, type: string, length?: number): unknown;
}

let loaded: Koffi | undefined;

/** Loads koffi on first use, so importing the backend never fails on a machine without its native addon. */
export function koffi(): Koffi {
  loaded ??= createRequire(import.meta.url)('koffi') as Koffi;
  return loaded;
}

/**
 * A C function bound by koffi; the CUDA libraries' functions all return a status code. `async` runs the call on a
 * libuv pool thread and hands (error, result) to the callback given last: for calls that may block for a while.
 */
export type NativeFunction = ((...args: unknown[]) => number) & { async(...argsThenCallback: unknown[]): void };

/** Loads a shared library and declares the given C prototypes; the functions by name. */
export function bindLibrary(path: string, prototypes: readonly string[]): Record<string, NativeFunction> {
  const lib = koffi().load(path);
  const functions: Record<string, NativeFunction> = {};
  const trace = hostTrace();
  for (const prototype of prototypes) {
    const name = /(\w+)\s*\(/.exec(prototype)![1];
    const native = lib.func(prototype) as NativeFunction;
    functions[name] = trace ? Object.assign(trace.wrap(name, native), { async: native.async }) : native;
  }
  return functions;
}
