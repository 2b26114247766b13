import { describe, expect, it } from 'vitest';
import { PageLockedArena, type PageLockedDriver } from '../src/page-locked-arena.js';

/** Page-locked "memory" as ArrayBuffers, and events that pass when the test says the stream has run. */
function fakeDriver() {
  const memory = new Map<bigint, ArrayBuffer>();
  let next = 0x10000n;
  let nextEvent = 1n;
  const recorded = new Set<bigint>();
  const calls = { mallocHost: 0, waits: 0, freed: [] as bigint[] };
  const driver: PageLockedDriver = {
    mallocHost(bytes: number) {
      calls.mallocHost++;
      const ptr = next;
      memory.set(ptr, new ArrayBuffer(bytes));
      next += BigInt(bytes) + 0x10000n;
      return ptr;
    },
    freeHost(ptr: bigint) {
      if (!memory.delete(ptr)) throw new Error('freeing memory that is not page-locked');
      calls.freed.push(ptr);
    },
    destroyEvent: () => {},
    createEvent: () => nextEvent++,
    record: (event: bigint) => void recorded.add(event),
    eventDone: (event: bigint) => !recorded.has(event),
    eventSynchronize(event: bigint) {
      calls.waits++;
      recorded.delete(event);
    },
  };
  /** The memory of `bytes` at `ptr`, inside one allocation (as koffi.view gives it); counted: one per block, not per buffer. */
  const views = { made: 0 };
  const view = (ptr: bigint, bytes: number): ArrayBuffer => {
    views.made++;
    const buffer = memory.get(ptr);
    if (buffer && bytes <= buffer.byteLength) return buffer;
    throw new Error('a view that is not a whole page-locked block');
  };
  return { driver, view, views, calls, runStream: () => recorded.clear() };
}

describe('PageLockedArena', () => {
  it('cuts aligned, disjoint buffers from its blocks, views each block once, and knows the address of a view into one', () => {
    const { driver, view, views } = fakeDriver();
    const arena = new PageLockedArena(driver, view, 4096);
    const a = arena.allocate(100);
    const b = arena.allocate(1000);
    const pa = arena.pointerOf(a)!;
    const pb = arena.pointerOf(b)!;
    expect(pa % 256n).toBe(0n);
    expect(pb - pa).toBe(256n); // 100 bytes take one 256-byte slot
    expect(b.byteOffset % 256).toBe(0);
    expect(arena.pointerOf(new Int32Array(b.buffer, b.byteOffset + 8, 2))).toBe(pb + 8n);
    expect(arena.pointerOf(new Uint8Array(new ArrayBuffer(8)))).toBeUndefined();
    expect(a.byteLength).toBe(100);
    expect(a.buffer).toBe(b.buffer); // one ArrayBuffer a block: V8 sees one external allocation, not one a tensor
    for (let i = 0; i < 10; i++) arena.allocate(100);
    expect(views.made).toBe(1);
  });

  it('hands a block out again only once its buffers are released and the copies queued before have run', () => {
    const { driver, view, calls, runStream } = fakeDriver();
    const arena = new PageLockedArena(driver, view, 4096);
    const first = [arena.allocate(2048), arena.allocate(2048)]; // block 1, full
    const blockOne = arena.pointerOf(first[0]);
    const second = arena.allocate(2048); // block 2
    expect(calls.mallocHost).toBe(2);
    for (const buffer of first) arena.release(buffer, 0n);
    // Block 1's copies have not run: a block that does not fit the current one waits for them, pinning no more.
    arena.allocate(2048); // block 2's second half
    const reused = arena.allocate(2048);
    expect(calls.mallocHost).toBe(2);
    expect(calls.waits).toBe(1);
    expect(arena.pointerOf(reused)).toBe(blockOne);
    // With block 2 still live and block 1 in use again, a new block is pinned.
    arena.release(second, 0n);
    runStream();
    arena.allocate(4096);
    expect(calls.mallocHost).toBe(3);
    // A buffer given back twice, or one that is not the arena's, changes nothing.
    arena.release(second, 0n);
    arena.release(new Uint8Array(16), 0n);
  });

  it('never hands out memory still in use', () => {
    const { driver, view, runStream } = fakeDriver();
    const arena = new PageLockedArena(driver, view, 8192);
    const live = new Map<Uint8Array, [bigint, bigint]>();
    let seed = 3;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 2000; step++) {
      if (live.size > 0 && rand() < 0.45) {
        const victim = [...live.keys()][Math.floor(rand() * live.size)];
        // Given back as the tensor made from it is (a typed view from its first byte), or as handed out.
        arena.release(rand() < 0.5 ? victim : new Uint16Array(victim.buffer, victim.byteOffset, victim.byteLength >> 1), 0n);
        live.delete(victim);
      } else {
        const bytes = 1 + Math.floor(rand() * 5000);
        const buffer = arena.allocate(bytes);
        const start = arena.pointerOf(buffer)!;
        const end = start + BigInt(bytes);
        for (const [s, e] of live.values()) expect(start < e && s < end).toBe(false);
        live.set(buffer, [start, end]);
      }
      if (rand() < 0.1) runStream();
    }
  });

  it('frees, after their copies, the blocks whose buffers all came back, and keeps those still lent', () => {
    const { driver, view, calls } = fakeDriver();
    const arena = new PageLockedArena(driver, view, 4096);
    const done = arena.allocate(4096); // block 1
    const stillOut = arena.allocate(4096); // block 2: a read still under way
    arena.release(done, 0n);
    arena.freeIdleBlocks();
    expect(calls.freed.length).toBe(1);
    expect(calls.waits).toBe(1); // block 1's copies waited for before its memory went back
    expect(arena.pointerOf(stillOut)).toBeDefined();
    arena.allocate(100); // pins again
    expect(calls.mallocHost).toBe(3);
  });

  it('where the driver will not pin more, hands out plain memory: uploaded as a pageable copy, ignored on release', () => {
    const { driver, view } = fakeDriver();
    const refusing: PageLockedDriver = { ...driver, mallocHost: () => { throw new Error('CUDA_ERROR_OUT_OF_MEMORY'); } };
    const arena = new PageLockedArena(refusing, view, 1024);
    const buffer = arena.allocate(300);
    expect(buffer.byteLength).toBe(300);
    expect(arena.pointerOf(buffer)).toBeUndefined();
    expect(() => arena.release(buffer, 0n)).not.toThrow();
    expect(() => arena.freeIdleBlocks()).not.toThrow();
  });

  it('stages a view of a JS array: its bytes in a page-locked buffer at a known address, the block used in turn', () => {
    const { driver, view, calls, runStream } = fakeDriver();
    const arena = new PageLockedArena(driver, view, 4096);
    const ids = Int32Array.from({ length: 300 }, (_, i) => i * 7 - 5);
    const src = ids.subarray(10, 260); // a view: its own offset into a larger buffer
    const staged = arena.stage(src, src.byteLength)!;
    expect(arena.pointerOf(staged.buffer)).toBe(staged.ptr);
    expect(Array.from(new Int32Array(staged.buffer.buffer, staged.buffer.byteOffset, 250))).toEqual(Array.from(src));
    arena.release(staged.buffer, 0n);
    // Staged and released batch after batch, two blocks in turn, once each block's copies have run.
    for (let batch = 0; batch < 20; batch++) {
      const s = arena.stage(src, src.byteLength)!;
      arena.release(s.buffer, 0n);
      runStream();
    }
    expect(calls.mallocHost).toBe(2);
    expect(calls.waits).toBe(0);
  });

  it('stages nothing where the driver will not pin more: the copy is then made from the array itself', () => {
    const { driver, view } = fakeDriver();
    const refusing = { ...driver, mallocHost: () => { throw new Error('CUDA_ERROR_OUT_OF_MEMORY'); } };
    const arena = new PageLockedArena(refusing, view, 4096);
    expect(arena.stage(new Uint8Array(64), 64)).toBeUndefined();
  });
});
