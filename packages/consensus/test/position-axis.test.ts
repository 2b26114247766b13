// The track's x axis: labels that cannot run into each other on long sequences (issue 48: a 4.9 Mb genome's
// labels read `1,000,0001,250,000…`). The page script is evaluated as the page runs it.

import { describe, expect, it } from 'vitest';
import { AXIS_CHAR_PX, POSITION_AXIS_JS } from '../src/report/position-axis.js';
import { REPORT_JS } from '../src/report/report-page.js';

const axis = new Function(`${POSITION_AXIS_JS}; return { POSITION_INCRS, positionLabel, positionAxisSpace };`)() as {
  POSITION_INCRS: number[];
  positionLabel: (bp: number, step: number) => string;
  positionAxisSpace: (min: number, max: number) => number;
};

/** As uPlot picks a step: the smallest of the axis's incrs whose ticks are at least `space` pixels apart. */
function ticksOf(min: number, max: number, widthPx: number) {
  const space = axis.positionAxisSpace(min, max);
  const pxPerBp = widthPx / (max - min);
  const step = axis.POSITION_INCRS.find((s) => s * pxPerBp >= space)!;
  const values: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) values.push(v);
  return { space, step, stepPx: step * pxPerBp, labels: values.map((v) => axis.positionLabel(v, step)) };
}

describe('the track position axis', () => {
  it.each([
    [4_900_000, 1150],
    [4_900_000, 500],
    [250_000_000, 1150],
    [48_502, 1150],
    [1_234, 800],
    [120, 300],
  ])('length %d at %d px: ticks at least as far apart as the widest label, labels distinct', (length, width) => {
    const { stepPx, labels } = ticksOf(1, length, width);
    expect(labels.length).toBeGreaterThan(1);
    const widest = Math.max(...labels.map((l) => l.length * AXIS_CHAR_PX));
    expect(stepPx).toBeGreaterThanOrEqual(widest);
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('zoomed in on a long sequence (a narrow range of large positions): still no overlap, labels distinct', () => {
    const { stepPx, labels } = ticksOf(4_800_000, 4_800_400, 1150);
    expect(stepPx).toBeGreaterThanOrEqual(Math.max(...labels.map((l) => l.length * AXIS_CHAR_PX)));
    expect(new Set(labels).size).toBe(labels.length);
  });

  it('labels in the unit of the step: Mb, kb or bp, with the decimals the step needs', () => {
    expect(axis.positionLabel(1_250_000, 250_000)).toBe('1.25 Mb');
    expect(axis.positionLabel(3_000_000, 1_000_000)).toBe('3 Mb');
    expect(axis.positionLabel(12_500, 2_500)).toBe('12.5 kb');
    expect(axis.positionLabel(40_000, 10_000)).toBe('40 kb');
    expect(axis.positionLabel(1_200, 100)).toBe('1,200');
  });

  it('is what the page uses for the track', () => {
    expect(REPORT_JS).toContain(POSITION_AXIS_JS);
    expect(REPORT_JS).toMatch(/space:function\(u,i,min,max\)\{return positionAxisSpace\(min,max\);\}/);
  });
});
