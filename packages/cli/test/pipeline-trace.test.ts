import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PIPELINE_TRACE_ENV, startPipelineTrace } from '../src/pipeline/pipeline-trace.js';

describe('pipeline trace', () => {
  it('appends the counters as they are when sampled, one row per tick and one at stop', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'pipeline-trace-')), 'trace.tsv');
    const counters = { read: 0, embedded: 0, delivered: 0, classified: 0, freeCredit: 3 };
    const trace = startPipelineTrace(() => counters, { [PIPELINE_TRACE_ENV]: path });
    counters.read = 640;
    await new Promise((resolve) => setTimeout(resolve, 450));
    Object.assign(counters, { embedded: 512, delivered: 500, classified: 256, freeCredit: 1 });
    trace.stop();
    const rows = readFileSync(path, 'utf8').trim().split('\n').map((line) => line.split('\t'));
    expect(rows[0]).toEqual(['seconds', 'read', 'embedded', 'delivered', 'classified', 'free_credit', 'main_elu']);
    expect(rows.length).toBeGreaterThanOrEqual(3); // header, ≥ 1 tick, the final row
    expect(rows[1].slice(1, 6)).toEqual(['640', '0', '0', '0', '3']);
    expect(rows.at(-1)!.slice(1, 6)).toEqual(['640', '512', '500', '256', '1']);
    const elu = Number(rows.at(-1)![6]);
    expect(elu).toBeGreaterThanOrEqual(0);
    expect(elu).toBeLessThanOrEqual(1);
  });
});
