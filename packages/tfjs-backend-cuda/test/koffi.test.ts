import { describe, expect, it } from 'vitest';
import { bindLibrary } from '../src/koffi.js';

describe('bindLibrary', () => {
  it('declares C prototypes and returns the functions by name (libc stands in for the CUDA libraries)', () => {
    const libc = bindLibrary('libc.so.6', ['int abs(int x)', 'int atoi(const char *s)']);
    expect(libc.abs(-3)).toBe(3);
    expect(libc.atoi('42')).toBe(42);
  });

  it('fails with the loader error for a library that is not there', () => {
    expect(() => bindLibrary('/nonexistent/libcuda.so.1', ['int cuInit(unsigned int flags)'])).toThrow();
  });
});
