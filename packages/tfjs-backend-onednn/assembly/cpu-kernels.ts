// The onednn backend's element-wise and row kernels, compiled to WebAssembly (AssemblyScript, 128-bit SIMD; see
// scripts/build-wasm.mjs). The GEMMs run in oneDNN; everything between them runs here, four lanes at a time,
// because plain JavaScript spends ~2 ns an element on a bias add and ~50 on an erf.
//
// Every kernel works on rows it is given (byte addresses in this module's memory, chosen by the caller) and
// computes each row from that row alone, in an order fixed by the row's length: the same bytes whatever the
// batch around it (docs/architecture.md, batch invariance).

// exp(x), Cephes expf: x = n·ln2 + r, |r| ≤ ln2/2, exp(r) by a degree-6 polynomial, 2^n built in the exponent.
// Relative error ≤ 2 ulp on [-87, 88]; below that the result flushes to 0 as expf does.
// @ts-ignore: decorator
@inline
function expV(x: v128): v128 {
  const c = f32x4.min(f32x4.max(x, f32x4.splat(-87.33654)), f32x4.splat(88.72283));
  const n = f32x4.nearest(f32x4.mul(c, f32x4.splat(1.44269504)));
  let r = f32x4.sub(c, f32x4.mul(n, f32x4.splat(0.693359375)));
  r = f32x4.sub(r, f32x4.mul(n, f32x4.splat(-2.12194440e-4)));
  let p = f32x4.splat(1.9875691500e-4);
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.3981999507e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(8.3334519073e-3));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(4.1665795894e-2));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(1.6666665459e-1));
  p = f32x4.add(f32x4.mul(p, r), f32x4.splat(5.0000001201e-1));
  p = f32x4.add(f32x4.add(f32x4.mul(f32x4.mul(p, r), r), r), f32x4.splat(1));
  const scale = i32x4.shl(i32x4.add(i32x4.trunc_sat_f32x4_s(n), i32x4.splat(127)), 23);
  const y = f32x4.mul(p, scale);
  // exp of anything below -87.3 is 0 (denormals are not worth the lanes).
  return v128.and(y, f32x4.gt(x, f32x4.splat(-87.33654)));
}

// erf(x) by Abramowitz & Stegun 7.1.26 (|error| ≤ 1.5e-7), the formula tfjs' cpu and wasm backends use.
// @ts-ignore: decorator
@inline
function erfV(x: v128): v128 {
  const a = f32x4.abs(x);
  const t = f32x4.div(f32x4.splat(1), f32x4.add(f32x4.splat(1), f32x4.mul(f32x4.splat(0.3275911), a)));
  let p = f32x4.splat(1.061405429);
  p = f32x4.add(f32x4.mul(p, t), f32x4.splat(-1.453152027));
  p = f32x4.add(f32x4.mul(p, t), f32x4.splat(1.421413741));
  p = f32x4.add(f32x4.mul(p, t), f32x4.splat(-0.284496736));
  p = f32x4.add(f32x4.mul(p, t), f32x4.splat(0.254829592));
  const y = f32x4.sub(f32x4.splat(1), f32x4.mul(f32x4.mul(p, t), expV(f32x4.neg(f32x4.mul(a, a)))));
  // copy the sign of x onto y
  return v128.or(y, v128.and(x, i32x4.splat(0x80000000)));
}

// The exact (erf) GELU: 0.5·v·(1 + erf(v/√2)).
// @ts-ignore: decorator
@inline
function geluV(v: v128): v128 {
  const e = erfV(f32x4.mul(v, f32x4.splat(0.70710678118654752)));
  return f32x4.mul(f32x4.mul(v, f32x4.splat(0.5)), f32x4.add(e, f32x4.splat(1)));
}

// One lane's worth of the vector functions, for the columns past the last multiple of four.
// @ts-ignore: decorator
@inline
function lane0(v: v128): f32 {
  return f32x4.extract_lane(v, 0);
}

/**
 * y[r][c] = act(y[r][c] + bias[c]) + residual[r][c] for r < rows, c < cols (rows of `cols` floats, in place).
 * `bias` and `residual` are 0 when absent; act is the exact GELU when `gelu` is 1, else the identity.
 */
export function linearEpilogue(y: usize, rows: i32, cols: i32, bias: usize, residual: usize, gelu: i32): void {
  const vecCols = cols & ~3;
  for (let r = 0; r < rows; r++) {
    const row = y + (<usize>r * <usize>cols << 2);
    const res = residual == 0 ? 0 : residual + (<usize>r * <usize>cols << 2);
    for (let c = 0; c < cols; c += 4) {
      const o = <usize>c << 2;
      let v: v128;
      if (c < vecCols) {
        v = v128.load(row + o);
        if (bias != 0) v = f32x4.add(v, v128.load(bias + o));
        if (gelu) v = geluV(v);
        if (res != 0) v = f32x4.add(v, v128.load(res + o));
        v128.store(row + o, v);
      } else {
        for (let k = c; k < cols; k++) {
          const ok = <usize>k << 2;
          let s = load<f32>(row + ok);
          if (bias != 0) s += load<f32>(bias + ok);
          if (gelu) s = lane0(geluV(f32x4.splat(s)));
          if (res != 0) s += load<f32>(res + ok);
          store<f32>(row + ok, s);
        }
      }
    }
  }
}

// Sum of a row: four lane sums over the row in order, then the lanes added as (0+1)+(2+3), then the tail.
// @ts-ignore: decorator
@inline
function rowSum(row: usize, n: i32): f32 {
  const vecN = n & ~3;
  let acc = f32x4.splat(0);
  for (let c = 0; c < vecN; c += 4) acc = f32x4.add(acc, v128.load(row + (<usize>c << 2)));
  let s: f32 = (f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)) + (f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3));
  for (let c = vecN; c < n; c++) s += load<f32>(row + (<usize>c << 2));
  return s;
}

// Sum of squared deviations from `mean`, in the same order as rowSum.
// @ts-ignore: decorator
@inline
function rowSquares(row: usize, n: i32, mean: f32): f32 {
  const vecN = n & ~3;
  let acc = f32x4.splat(0);
  const m = f32x4.splat(mean);
  for (let c = 0; c < vecN; c += 4) {
    const d = f32x4.sub(v128.load(row + (<usize>c << 2)), m);
    acc = f32x4.add(acc, f32x4.mul(d, d));
  }
  let s: f32 = (f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)) + (f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3));
  for (let c = vecN; c < n; c++) {
    const d = load<f32>(row + (<usize>c << 2)) - mean;
    s += d * d;
  }
  return s;
}

/** out[r] = (x[r] − mean)·(var + eps)^−½·gamma + beta per row of d floats (biased variance, two passes, as torch). */
export function layerNorm(x: usize, out: usize, rows: i32, d: i32, gamma: usize, beta: usize, eps: f32): void {
  const vecD = d & ~3;
  for (let r = 0; r < rows; r++) {
    const row = x + (<usize>r * <usize>d << 2);
    const dst = out + (<usize>r * <usize>d << 2);
    const mean = rowSum(row, d) / <f32>d;
    const inv: f32 = 1 / Mathf.sqrt(rowSquares(row, d, mean) / <f32>d + eps);
    const m = f32x4.splat(mean);
    const s = f32x4.splat(inv);
    for (let c = 0; c < vecD; c += 4) {
      const o = <usize>c << 2;
      const v = f32x4.mul(f32x4.sub(v128.load(row + o), m), s);
      v128.store(dst + o, f32x4.add(f32x4.mul(v, v128.load(gamma + o)), v128.load(beta + o)));
    }
    for (let c = vecD; c < d; c++) {
      const o = <usize>c << 2;
      store<f32>(dst + o, (load<f32>(row + o) - mean) * inv * load<f32>(gamma + o) + load<f32>(beta + o));
    }
  }
}

/**
 * Softmax of each of `rows` rows of `n` floats in place (max subtracted first). With `slope` ≠ 0, row i of every
 * block of `n` rows (a head's L×L score matrix) first gets −slope·|i − j| added at column j (ALiBi).
 */
export function softmaxRows(s: usize, rows: i32, n: i32, slope: f32): void {
  const vecN = n & ~3;
  const lanes = f32x4(0, 1, 2, 3);
  for (let r = 0; r < rows; r++) {
    const row = s + (<usize>r * <usize>n << 2);
    if (slope != 0) {
      const i = <f32>(r % n);
      const vi = f32x4.splat(i);
      const vs = f32x4.splat(slope);
      for (let c = 0; c < vecN; c += 4) {
        const o = <usize>c << 2;
        const j = f32x4.add(f32x4.splat(<f32>c), lanes);
        v128.store(row + o, f32x4.sub(v128.load(row + o), f32x4.mul(vs, f32x4.abs(f32x4.sub(vi, j)))));
      }
      for (let c = vecN; c < n; c++) {
        const o = <usize>c << 2;
        store<f32>(row + o, load<f32>(row + o) - slope * Mathf.abs(i - <f32>c));
      }
    }
    let mx = f32x4.splat(-Infinity);
    for (let c = 0; c < vecN; c += 4) mx = f32x4.max(mx, v128.load(row + (<usize>c << 2)));
    let m: f32 = max(max(f32x4.extract_lane(mx, 0), f32x4.extract_lane(mx, 1)), max(f32x4.extract_lane(mx, 2), f32x4.extract_lane(mx, 3)));
    for (let c = vecN; c < n; c++) m = max(m, load<f32>(row + (<usize>c << 2)));
    const vm = f32x4.splat(m);
    let acc = f32x4.splat(0);
    for (let c = 0; c < vecN; c += 4) {
      const o = <usize>c << 2;
      const e = expV(f32x4.sub(v128.load(row + o), vm));
      v128.store(row + o, e);
      acc = f32x4.add(acc, e);
    }
    let sum: f32 = (f32x4.extract_lane(acc, 0) + f32x4.extract_lane(acc, 1)) + (f32x4.extract_lane(acc, 2) + f32x4.extract_lane(acc, 3));
    for (let c = vecN; c < n; c++) {
      const o = <usize>c << 2;
      const e = lane0(expV(f32x4.splat(load<f32>(row + o) - m)));
      store<f32>(row + o, e);
      sum += e;
    }
    const inv = f32x4.splat(1 / sum);
    for (let c = 0; c < vecN; c += 4) {
      const o = <usize>c << 2;
      v128.store(row + o, f32x4.mul(v128.load(row + o), inv));
    }
    for (let c = vecN; c < n; c++) {
      const o = <usize>c << 2;
      store<f32>(row + o, load<f32>(row + o) * (1 / sum));
    }
  }
}

/**
 * Rotary embedding of the q and k parts of rows of a fused projection (q | k | v, each `heads`·`hd` wide), in
 * place: row r at position positions[r] (i32) becomes x·cos[p] + swapHalves(x)·sinSigned[p] per head.
 */
export function rotaryQk(qkv: usize, rows: i32, heads: i32, hd: i32, cos: usize, sinSigned: usize, positions: usize): void {
  const width = heads * hd;
  const half = hd >> 1;
  const rowFloats = 3 * width;
  for (let r = 0; r < rows; r++) {
    const p = load<i32>(positions + (<usize>r << 2));
    const c = cos + (<usize>(p * hd) << 2);
    const sn = sinSigned + (<usize>(p * hd) << 2);
    // q and k: 2·heads head vectors of hd floats, each rotated as its two halves
    for (let h = 0; h < 2 * heads; h++) {
      const x = qkv + (<usize>(r * rowFloats + h * hd) << 2);
      let i = 0;
      for (; i + 4 <= half; i += 4) {
        const o1 = <usize>i << 2;
        const o2 = <usize>(i + half) << 2;
        const a = v128.load(x + o1);
        const b = v128.load(x + o2);
        v128.store(x + o1, f32x4.add(f32x4.mul(a, v128.load(c + o1)), f32x4.mul(b, v128.load(sn + o1))));
        v128.store(x + o2, f32x4.add(f32x4.mul(b, v128.load(c + o2)), f32x4.mul(a, v128.load(sn + o2))));
      }
      for (; i < half; i++) {
        const o1 = <usize>i << 2;
        const o2 = <usize>(i + half) << 2;
        const a = load<f32>(x + o1);
        const b = load<f32>(x + o2);
        store<f32>(x + o1, a * load<f32>(c + o1) + b * load<f32>(sn + o1));
        store<f32>(x + o2, b * load<f32>(c + o2) + a * load<f32>(sn + o2));
      }
    }
  }
}

/** out[r][c] = gelu(x[r][c])·x[r][f + c] for rows of 2f floats in x, f in out. */
export function geglu(x: usize, out: usize, rows: i32, f: i32): void {
  const vecF = f & ~3;
  for (let r = 0; r < rows; r++) {
    const src = x + (<usize>r * <usize>(2 * f) << 2);
    const dst = out + (<usize>r * <usize>f << 2);
    for (let c = 0; c < vecF; c += 4) {
      const o = <usize>c << 2;
      v128.store(dst + o, f32x4.mul(geluV(v128.load(src + o)), v128.load(src + (<usize>f << 2) + o)));
    }
    for (let c = vecF; c < f; c++) {
      const o = <usize>c << 2;
      store<f32>(dst + o, lane0(geluV(f32x4.splat(load<f32>(src + o)))) * load<f32>(src + (<usize>f << 2) + o));
    }
  }
}
