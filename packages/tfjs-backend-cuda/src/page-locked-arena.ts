// Page-locked host memory that a model's weights are read into, so that their upload is a DMA queued on the stream
// and not a memcpy on the worker's thread. A copy from a JS array (pageable memory) is staged through the driver's
// own buffer on the calling thread: ESM-2 3B's 5.7 GB took ~1.2 s of a GPU worker's start that way, and copying into
// page-locked memory first took as long (docs/benchmarks/scaling.md). Read straight from the file into these buffers,
// the copy out of the page cache runs on libuv's threads and the worker's thread only queues the DMA.
// Buffers are byte views cut from blocks of `blockBytes`, each block one ArrayBuffer over its memory: V8 counts an
// external ArrayBuffer's bytes towards its next full collection, and one per tensor (ESM-2 3B: ~600, 5.7 GB) had it
// collect the whole heap ~70 times during a load (26–39 % of the upload's time on an H200). A block is used again
// once every buffer cut from it was released and the copies queued from them before their release have run (an
// event recorded at the release).
import type { CudaDriver, Handle } from './cuda-driver.js';

export type PageLockedDriver = Pick<CudaDriver, 'mallocHost' | 'freeHost' | 'createEvent' | 'record' | 'eventDone' | 'eventSynchronize' | 'destroyEvent'>;

interface Block {
  ptr: bigint;
  bytes: number;
  /** The block's memory, viewed once. */
  memory: ArrayBuffer;
  /** Next free offset. */
  used: number;
  /** Offsets of the buffers cut from it and not yet released. */
  live: Set<number>;
  /** Recorded at the last release: the copies from the block are queued before it. */
  event: Handle | undefined;
}

/** Buffers are cut at this alignment (every element type, and the DMA's preference). */
const ALIGN = 256;

export class PageLockedArena {
  private readonly blocks: Block[] = [];
  /** Each block's memory → the block (a buffer's `.buffer` is its block's memory). */
  private readonly owners = new WeakMap<ArrayBuffer, Block>();
  private current: Block | undefined;

  constructor(
    private readonly driver: PageLockedDriver,
    private readonly view: (ptr: bigint, bytes: number) => ArrayBuffer,
    private readonly blockBytes = 64 * 2 ** 20,
  ) {}

  /**
   * A page-locked buffer of `bytes` (a block of its own when larger than a block): a view at an aligned offset of its
   * block's memory. A plain Uint8Array when the driver will not pin more (its upload is then the pageable copy, the
   * same bytes).
   */
  allocate(bytes: number): Uint8Array {
    const size = Math.max(ALIGN, Math.ceil(bytes / ALIGN) * ALIGN);
    let block = this.current;
    if (!block || block.used + size > block.bytes) {
      const free = this.freeBlock(size);
      if (free) block = free;
      else {
        try {
          block = this.newBlock(Math.max(size, this.blockBytes));
        } catch {
          return new Uint8Array(bytes);
        }
      }
      this.current = block;
    }
    const offset = block.used;
    block.used += size;
    block.live.add(offset);
    return new Uint8Array(block.memory, offset, bytes);
  }

  /** The device-visible address of `view`'s first byte when its memory is one of this arena's buffers. */
  pointerOf(view: ArrayBufferView): bigint | undefined {
    const block = this.owners.get(view.buffer as ArrayBuffer);
    return block && block.ptr + BigInt(view.byteOffset);
  }

  /**
   * Gives back the buffer that `view` starts (the one `allocate` returned, or any view from its first byte) once the
   * copies from it queued on `stream` so far have run; using it after this is a bug (its memory is handed out
   * again). Views that start no live buffer of this arena (plain memory, a buffer given back already) are ignored.
   */
  release(view: ArrayBufferView, stream: Handle): void {
    const block = this.owners.get(view.buffer as ArrayBuffer);
    if (!block || !block.live.delete(view.byteOffset)) return;
    block.event ??= this.driver.createEvent();
    this.driver.record(block.event, stream);
  }

  /**
   * The first `bytes` of `src` copied into one of the arena's buffers, for a copy to the device from page-locked
   * memory: its address, and the buffer to release once that copy is queued. Undefined where the driver will not pin
   * more (the copy is then made from `src` itself).
   */
  stage(src: ArrayBufferView, bytes: number): { ptr: bigint; buffer: Uint8Array } | undefined {
    const buffer = this.allocate(bytes);
    const ptr = this.pointerOf(buffer);
    if (ptr === undefined) return undefined;
    buffer.set(new Uint8Array(src.buffer, src.byteOffset, bytes));
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
      if (block.live.size > 0) continue;
      if (block.event) {
        this.driver.eventSynchronize(block.event);
        this.driver.destroyEvent(block.event);
      }
      this.driver.freeHost(block.ptr);
      this.owners.delete(block.memory);
      this.blocks.splice(i, 1);
      if (this.current === block) this.current = undefined;
    }
  }

  /** A block with no live buffers whose copies have run, emptied; undefined if none fits. */
  private freeBlock(size: number): Block | undefined {
    for (const block of this.blocks) {
      if (block.live.size > 0 || block.bytes < size || block === this.current) continue;
      if (block.event && !this.driver.eventDone(block.event)) continue;
      block.used = 0;
      return block;
    }
    // Every fitting block still in use: wait for the oldest released one rather than pin more memory.
    const waiting = this.blocks.find((b) => b.live.size === 0 && b.bytes >= size && b !== this.current && b.event);
    if (!waiting) return undefined;
    this.driver.eventSynchronize(waiting.event!);
    waiting.used = 0;
    return waiting;
  }

  private newBlock(bytes: number): Block {
    const ptr = this.driver.mallocHost(bytes);
    const block: Block = { ptr, bytes, memory: this.view(ptr, bytes), used: 0, live: new Set(), event: undefined };
    this.owners.set(block.memory, block);
    this.blocks.push(block);
    return block;
  }
}
