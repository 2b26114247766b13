// The duplicate-id check's set: every earlier id found with its record number, through many growths, in typed
// arrays (12 bytes a record at most load) instead of a Map of the ids.
import { describe, expect, it } from 'vitest';
import { RecordIdSet } from '../src/pipeline/record-id-set.js';

describe('RecordIdSet', () => {
  it('finds each id added before with the record it came with, and no id that was not added', () => {
    const set = new RecordIdSet();
    const ids = Array.from({ length: 200_000 }, (_, i) => `A00123:456:HXXXXDSXX:1:1101:${i}:1000`);
    ids.forEach((id, i) => expect(set.addOrFind(id, i + 1)).toBeUndefined());
    for (const i of [0, 1, 4095, 4096, 99_999, 199_999]) expect(set.addOrFind(ids[i], 999_999)).toBe(i + 1);
    expect(set.addOrFind('never-added', 200_001)).toBeUndefined();
    expect(set.addOrFind('never-added', 200_002)).toBe(200_001);
  });
});
