// The MLP's hidden layer, compiled to WebAssembly (AssemblyScript, 128-bit SIMD). See scripts/build-wasm.mjs.
//
// hidden[r][h] = relu(Σ_k x[r][k]·w1[h][k] · scale[h] + shift[h]), every sum in double precision over k in order:
// the same operations in the same order as the plain JavaScript loop, so the same bytes (a float32 times a float32
// is exact in a double; the additions round the same way). Speed comes from the lanes: two rows per f64x2, a block
// of four rows against four hidden units per pass over k (each weight loaded serves four rows, each pair of
// features four units).
//
// Memory (byte addresses chosen by the caller): w1 f32[H·n], scale f64[H], shift f64[H], x f32[rows·n] (row-major),
// hidden f64[rows·H] (out), scratch f64[4·n] (the block's rows interleaved by k).

export function hiddenLayer(
  n: i32, H: i32, rows: i32,
  w1: usize, scale: usize, shift: usize, x: usize, hidden: usize, scratch: usize,
): void {
  for (let r0 = 0; r0 < rows; r0 += 4) {
    const count = min(4, rows - r0);
    // scratch[k][i] = x[r0 + i][k] as f64 (the last row repeated when the block is short)
    for (let i = 0; i < 4; i++) {
      const row = x + (<usize>((r0 + min(i, count - 1)) * n) << 2);
      for (let k = 0; k < n; k++) {
        store<f64>(scratch + (<usize>(k * 4 + i) << 3), <f64>load<f32>(row + (<usize>k << 2)));
      }
    }
    for (let h = 0; h < H; h += 4) {
      const h1 = min(h + 1, H - 1);
      const h2 = min(h + 2, H - 1);
      const h3 = min(h + 3, H - 1);
      const wa = w1 + (<usize>(h * n) << 2);
      const wb = w1 + (<usize>(h1 * n) << 2);
      const wc = w1 + (<usize>(h2 * n) << 2);
      const wd = w1 + (<usize>(h3 * n) << 2);
      let a01 = f64x2.splat(0), a23 = f64x2.splat(0);
      let b01 = f64x2.splat(0), b23 = f64x2.splat(0);
      let c01 = f64x2.splat(0), c23 = f64x2.splat(0);
      let d01 = f64x2.splat(0), d23 = f64x2.splat(0);
      for (let k = 0; k < n; k++) {
        const s = scratch + (<usize>k << 5);
        const x01 = v128.load(s);
        const x23 = v128.load(s, 16);
        const o = <usize>k << 2;
        const wA = f64x2.splat(<f64>load<f32>(wa + o));
        const wB = f64x2.splat(<f64>load<f32>(wb + o));
        const wC = f64x2.splat(<f64>load<f32>(wc + o));
        const wD = f64x2.splat(<f64>load<f32>(wd + o));
        a01 = f64x2.add(a01, f64x2.mul(x01, wA));
        a23 = f64x2.add(a23, f64x2.mul(x23, wA));
        b01 = f64x2.add(b01, f64x2.mul(x01, wB));
        b23 = f64x2.add(b23, f64x2.mul(x23, wB));
        c01 = f64x2.add(c01, f64x2.mul(x01, wC));
        c23 = f64x2.add(c23, f64x2.mul(x23, wC));
        d01 = f64x2.add(d01, f64x2.mul(x01, wD));
        d23 = f64x2.add(d23, f64x2.mul(x23, wD));
      }
      // When H is not a multiple of 4 the last unit is computed more than once, with the same result.
      storeUnit(h3, d01, d23, r0, count, H, scale, shift, hidden);
      storeUnit(h2, c01, c23, r0, count, H, scale, shift, hidden);
      storeUnit(h1, b01, b23, r0, count, H, scale, shift, hidden);
      storeUnit(h, a01, a23, r0, count, H, scale, shift, hidden);
    }
  }
}

@inline
function storeUnit(unit: i32, s01: v128, s23: v128, r0: i32, count: i32, H: i32, scale: usize, shift: usize, hidden: usize): void {
  const sc = load<f64>(scale + (<usize>unit << 3));
  const sh = load<f64>(shift + (<usize>unit << 3));
  storeRelu(f64x2.extract_lane(s01, 0), sc, sh, hidden, r0, unit, H);
  if (count > 1) storeRelu(f64x2.extract_lane(s01, 1), sc, sh, hidden, r0 + 1, unit, H);
  if (count > 2) storeRelu(f64x2.extract_lane(s23, 0), sc, sh, hidden, r0 + 2, unit, H);
  if (count > 3) storeRelu(f64x2.extract_lane(s23, 1), sc, sh, hidden, r0 + 3, unit, H);
}

@inline
function storeRelu(sum: f64, sc: f64, sh: f64, hidden: usize, row: i32, unit: i32, H: i32): void {
  const v = sum * sc + sh;
  store<f64>(hidden + (<usize>(row * H + unit) << 3), v > 0 ? v : 0);
}
