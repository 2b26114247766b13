// Compares two prediction_results.txt files (same ids in the same order, labels, max |Δ| of scores) and
// optionally two consensus CSVs byte for byte. Prints one JSON line; exit 1 on a mismatch beyond --tol.
//   node compare-predictions.mjs GOT_DIR WANT_DIR_OR_FILE_PREFIX [--tol 1e-5]
import { readFileSync, existsSync } from 'node:fs';

const [got, want, , tolArg] = process.argv.slice(2);
const tol = Number(tolArg ?? 1e-5);
const file = (base, name) => (existsSync(`${base}/${name}`) ? `${base}/${name}` : `${base}_${name}`);
const rows = (path) => readFileSync(path, 'utf8').trimEnd().split('\n').slice(1).map((l) => l.split('\t'));
const a = rows(file(got, 'prediction_results.txt'));
const b = rows(file(want, 'prediction_results.txt'));
let maxAbs = 0;
let labels = 0;
const sameIds = a.length === b.length && a.every((r, i) => r[0] === b[i][0]);
if (sameIds) {
  a.forEach((r, i) => {
    maxAbs = Math.max(maxAbs, Math.abs(Number(r[2]) - Number(b[i][2])), Math.abs(Number(r[3]) - Number(b[i][3])));
    if (r[1] !== b[i][1]) labels++;
  });
}
// How close WANT's frames sit to the decision (|score2 − 0.5|): with random weights many may sit near it, and a
// label flip says more about that than about the precision. Reported: the largest such distance among flipped frames,
// and how many frames lie within the largest score change seen (a change that large could flip them).
const distance = (r) => Math.abs(Number(r[3]) - 0.5);
const flippedMaxDistance = sameIds ? Math.max(0, ...a.flatMap((r, i) => (r[1] !== b[i][1] ? [distance(b[i])] : []))) : undefined;
const withinMaxScoreDiff = sameIds ? b.filter((r) => distance(r) < maxAbs).length : undefined;
// How far GOT moved the scores (score2, the viral score) and whether it moved them one way: the median and 99th
// percentile of |Δ|, and over the frames WANT puts within 0.05 of 0.5 (those a lean flips) the mean signed Δ.
const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const shifts = sameIds ? a.map((r, i) => Number(r[3]) - Number(b[i][3])) : [];
const absShifts = shifts.map(Math.abs).sort((x, y) => x - y);
const near = sameIds ? shifts.filter((_, i) => distance(b[i]) < 0.05) : [];
const round = (v) => (v === undefined || Number.isNaN(v) ? undefined : Number(v.toPrecision(3)));
const scoreShift = sameIds && shifts.length
  ? { median: round(quantile(absShifts, 0.5)), p99: round(quantile(absShifts, 0.99)), meanSigned: round(shifts.reduce((s, v) => s + v, 0) / shifts.length), nearBoundary: near.length, nearBoundaryMeanSigned: round(near.length ? near.reduce((s, v) => s + v, 0) / near.length : Number.NaN) }
  : undefined;
const consensusSame = readFileSync(file(got, 'prediction_results_highestscore.csv'), 'utf8') === readFileSync(file(want, 'prediction_results_highestscore.csv'), 'utf8');
const pass = sameIds && labels === 0 && maxAbs <= tol && consensusSame;
console.log(JSON.stringify({ rows: a.length, sameIds, labelMismatches: labels, maxAbsScoreDiff: maxAbs, flippedMaxDistance, withinMaxScoreDiff, scoreShift, consensusSame, tol, pass }));
process.exitCode = pass ? 0 : 1;
