export type { PackItem, PackedBatch, PackOptions, WindowPackOptions } from './pack-types.js';
export { packArray } from './pack-array.js';
export { packBatches, packAsyncIterable, type PackBatchesOptions } from './pack-batches.js';
export { WindowPacker } from './window-packer.js';
export { restoreOrder, type RestoreOrderOptions } from './restore-order.js';
export { packingEfficiency } from './packing-efficiency.js';
export { firstFitDecreasing } from './first-fit-decreasing.js';
