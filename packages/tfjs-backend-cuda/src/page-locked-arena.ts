// Page-locked host memory that a model's weights are read into, so that their upload is a DMA queued on the stream
// and not a memcpy on the worker's thread. A copy from a JS array (pageable memory) is staged through the driver's
// own buffer on the calling thread: ESM-2 3B's 5.7 GB took ~1.2 s of a GPU worker's start that way, and copying into
// page-locked memory first took as long (docs/benchmarks/scaling.md). Read straight from the file into these buffers,
// the copy out of the page cache runs on libuv's threads and the worker's thread only queues the DMA.
// Buffers are cut from blocks of `blockBytes`; a block is used again once every buffer cut from it was released and
// the copies queued from them before their release have run (an event recorded at the release).
import type { CudaDriver, Handle } from './cuda-driver.js';

export type PageLockedDriver = Pick<CudaDriver, 'mallocHost' | 'freeHost' | 'createEvent' | 'record' | 'eventDone' | 'eventSynchronize' | 'destroyEvent'>;

interface Block {
  ptr: bigint;
  bytes: number;
  /** Next free offset. */
  used: number;
  /** Buffers cut from it and not yet released. */
  live: number;
  /** Recorded at the last release: the copies from the block are queued before it. */
  event: Handle | undefined;
}

/** Buffers are cut at this alignment (every element type, and the DMA's preference). */
const ALIGN = 256;

export class PageLockedArena {
  private readonly blocks: Block[] = [];
  private readonly owners = new WeakMap<ArrayBuffer, { block: Block; ptr: bigint }>();
  private current: Block | undefined;

  constructor(
    private readonly driver: PageLockedDriver,
    private readonly view: (ptr: bigint, bytes: number) => ArrayBuffer,
    private readonly blockBytes = 64 * 2 ** 20,
  ) {}

  /**
   * A page-locked buffer of `bytes` (a block of its own when larger than a block); a plain ArrayBuffer when the driver
   * will not pin more (its upload is then the pageable copy, the same bytes).
   */
  allocate(bytes: number): ArrayBuffer {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    let block = this.current;
    if (!block || block.used + size > block.bytes) {
      const free = this.freeBlock(size);
      if (free) block = free;
      else {
        try {
          block = this.newBlock(Math.max(size, this.blockBytes));
        } catch {
          return new ArrayBuffer(bytes);
        }
      }
      this.current = block;
    }
    const ptr = block.ptr + BigInt(block.used);
    block.used += size;
    block.live++;
    const buffer = this.view(ptr, bytes);
    this.owners.set(buffer, { block, ptr });
    return buffer;
  }

  /** The device-visible address of `view`'s first byte when its memory is one of this arena's buffers. */
  pointerOf(view: ArrayBufferView): bigint | undefined {
    const owner = this.owners.get(view.buffer as ArrayBuffer);
    return owner && owner.ptr + BigInt(view.byteOffset);
  }

  /**
   * Gives `buffer` back once the copies from it queued on `stream` so far have run; using it after this is a bug
   * (its memory is handed out again). Buffers not from this arena are ignored.
   */
  release(buffer: ArrayBuffer, stream: Handle): void {
    const owner = this.owners.get(buffer);
    if (!owner) return;
    this.owners.delete(buffer);
    const { block } = owner;
    block.live--;
    block.event ??= this.driver.createEvent();
    this.driver.record(block.event, stream);
  }

  /**
   * The first `bytes` of `src` copied into one of the arena's buffers, for a copy to the device from page-locked
   * memory: its address, and the buffer to release once that copy is queued. Undefined where the driver will not pin
   * more (the copy is then made from `src` itself).
   */
  stage(src: ArrayBufferView, bytes: number): { ptr: bigint; buffer: ArrayBuffer } | undefined {
    const buffer = this.allocate(bytes);
    const ptr = this.owners.get(buffer)?.ptr;
    if (ptr === undefined) return undefined;
    new Uint8Array(buffer, 0, bytes).set(new Uint8Array(src.buffer, src.byteOffset, bytes));
    return { ptr, buffer };
  }

  /**
   * Frees the blocks whose buffers were all released, once their copies have run (after a model's upload: its
   * page-locked memory is not kept for the run). Blocks with buffers still out (a read still under way after a failed
   * load) are kept. The arena pins new blocks when asked again.
   */
  freeIdleBlocks(): void {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const block = this.blocks[i];
      if (block.live > 0) continue;
      if (block.event) {
        this.driver.eventSynchronize(block.event);
        this.driver.destroyEvent(block.event);
      }
      this.driver.freeHost(block.ptr);
      this.blocks.splice(i, 1);
      if (this.current === block) this.current = undefined;
    }
  }

  /** A block with no live buffers whose copies have run, emptied; undefined if none fits. */
  private freeBlock(size: number): Block | undefined {
    for (const block of this.blocks) {
      if (block.live > 0 || block.bytes < size || block === this.current) continue;
      if (block.event && !this.driver.eventDone(block.event)) continue;
      block.used = 0;
      return block;
    }
    // Every fitting block still in use: wait for the oldest released one rather than pin more memory.
    const waiting = this.blocks.find((b) => b.live === 0 && b.bytes >= size && b !== this.current && b.event);
    if (!waiting) return undefined;
    this.driver.eventSynchronize(waiting.event!);
    waiting.used = 0;
    return waiting;
  }

  private newBlock(bytes: number): Block {
    const block: Block = { ptr: this.driver.mallocHost(bytes), bytes, used: 0, live: 0, event: undefined };
    this.blocks.push(block);
    return block;
  }
}
