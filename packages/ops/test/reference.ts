// Naive float64 reference implementations the tfjs ops are checked against.

export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomArray(n: number, random: () => number, scale = 1): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = (random() * 2 - 1) * scale;
  return out;
}

/** x [rows, inner] · w [inner, cols] + b. */
export function refLinear(x: Float32Array, w: Float32Array, b: Float32Array | undefined, rows: number, inner: number, cols: number): Float64Array {
  const y = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let sum = b ? b[c] : 0;
      for (let i = 0; i < inner; i++) sum += x[r * inner + i] * w[i * cols + c];
      y[r * cols + c] = sum;
    }
  }
  return y;
}

export function refLayerNorm(x: Float32Array, gamma: Float32Array, beta: Float32Array, eps: number, rows: number, d: number): Float64Array {
  const y = new Float64Array(rows * d);
  for (let r = 0; r < rows; r++) {
    let mean = 0;
    for (let i = 0; i < d; i++) mean += x[r * d + i];
    mean /= d;
    let variance = 0;
    for (let i = 0; i < d; i++) variance += (x[r * d + i] - mean) ** 2;
    variance /= d;
    for (let i = 0; i < d; i++) y[r * d + i] = ((x[r * d + i] - mean) / Math.sqrt(variance + eps)) * gamma[i] + beta[i];
  }
  return y;
}

/** erf by its Maclaurin series / continued fraction, accurate to ~1e-15 (independent of tfjs's approximation). */
export function erf(x: number): number {
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = ax, sum = ax;
    for (let n = 1; n < 200; n++) {
      term *= (-ax * ax) / n;
      const next = term / (2 * n + 1);
      sum += next;
      if (Math.abs(next) < 1e-17) break;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc continued fraction (Lentz) for large |x|.
  let f = ax, C = ax, D = 0;
  for (let n = 1; n < 200; n++) {
    const an = n / 2;
    D = ax + an * D; D = 1 / D;
    C = ax + an / C;
    const delta = C * D; f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

export function refGelu(x: Float32Array): Float64Array {
  return Float64Array.from(x, (v) => 0.5 * v * (1 + erf(v / Math.SQRT2)));
}

/**
 * Attention of one segment: q,k,v [L, H*hd] → [L, H*hd], scores·scale, optional ALiBi −slope·|i−j|.
 */
export function refAttention(
  q: Float32Array, k: Float32Array, v: Float32Array, L: number, H: number, hd: number, scale: number, slopes?: Float32Array,
): Float64Array {
  const width = H * hd;
  const out = new Float64Array(L * width);
  const scores = new Float64Array(L);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < L; i++) {
      let max = -Infinity;
      for (let j = 0; j < L; j++) {
        let s = 0;
        for (let c = 0; c < hd; c++) s += q[i * width + h * hd + c] * k[j * width + h * hd + c];
        s *= scale;
        if (slopes) s -= slopes[h] * Math.abs(i - j);
        scores[j] = s;
        if (s > max) max = s;
      }
      let total = 0;
      for (let j = 0; j < L; j++) { scores[j] = Math.exp(scores[j] - max); total += scores[j]; }
      for (let c = 0; c < hd; c++) {
        let acc = 0;
        for (let j = 0; j < L; j++) acc += scores[j] * v[j * width + h * hd + c];
        out[i * width + h * hd + c] = acc / total;
      }
    }
  }
  return out;
}

export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}
