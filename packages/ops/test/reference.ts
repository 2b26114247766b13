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

/** act(x·w + b) + residual, with act = none or the exact erf GELU. */
export function refLinearAct(
  x: Float32Array, w: Float32Array, b: Float32Array | undefined, rows: number, inner: number, cols: number,
  options: { activation?: 'none' | 'gelu'; residual?: Float32Array } = {},
): Float64Array {
  const y = refLinear(x, w, b, rows, inner, cols);
  for (let i = 0; i < y.length; i++) {
    if (options.activation === 'gelu') y[i] = 0.5 * y[i] * (1 + erf(y[i] / Math.SQRT2));
    if (options.residual) y[i] += options.residual[i];
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

/** GeGLU: x [rows, 2f] → [rows, f] = gelu(x[:, :f]) · x[:, f:]. */
export function refGeglu(x: Float32Array, rows: number, f: number): Float64Array {
  const y = new Float64Array(rows * f);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < f; c++) {
      const gate = x[r * 2 * f + c];
      y[r * f + c] = 0.5 * gate * (1 + erf(gate / Math.SQRT2)) * x[r * 2 * f + f + c];
    }
  }
  return y;
}

/**
 * Rotary embedding of q and k in qkv [N, 3·H·hd] (half-split convention): for i < hd/2 and angle
 * θ = positions[n]·invFreq[i], (x_i, x_{i+hd/2}) → (x_i·cosθ − x_{i+hd/2}·sinθ, x_{i+hd/2}·cosθ + x_i·sinθ); v unchanged.
 */
export function refRotaryQkv(qkv: Float32Array, invFreq: Float32Array, positions: ArrayLike<number>, H: number, hd: number): Float64Array {
  const width = 3 * H * hd;
  const half = hd / 2;
  const N = positions.length;
  const out = Float64Array.from(qkv);
  for (let n = 0; n < N; n++) {
    for (let head = 0; head < 2 * H; head++) {
      const base = n * width + head * hd;
      for (let i = 0; i < half; i++) {
        const angle = positions[n] * invFreq[i];
        const [a, b] = [qkv[base + i], qkv[base + i + half]];
        out[base + i] = a * Math.cos(angle) - b * Math.sin(angle);
        out[base + i + half] = b * Math.cos(angle) + a * Math.sin(angle);
      }
    }
  }
  return out;
}

/** Embedding: out[n] = table[ids[n]] · (rowScale ? rowScale[n] : scale). */
export function refEmbedding(ids: Int32Array, table: Float32Array, d: number, scale: number | Float32Array): Float64Array {
  const out = new Float64Array(ids.length * d);
  ids.forEach((id, n) => {
    const s = typeof scale === 'number' ? scale : scale[n];
    for (let c = 0; c < d; c++) out[n * d + c] = table[id * d + c] * s;
  });
  return out;
}

/** Fuses per-row q, k, v [N, width] into qkv [N, 3·width] (q | k | v). */
export function fuseQkv(q: Float32Array, k: Float32Array, v: Float32Array, N: number, width: number): Float32Array {
  const qkv = new Float32Array(N * 3 * width);
  for (let n = 0; n < N; n++) {
    qkv.set(q.subarray(n * width, (n + 1) * width), n * 3 * width);
    qkv.set(k.subarray(n * width, (n + 1) * width), n * 3 * width + width);
    qkv.set(v.subarray(n * width, (n + 1) * width), n * 3 * width + 2 * width);
  }
  return qkv;
}
