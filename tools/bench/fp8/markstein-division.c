// Markstein's quotient (r = RN(1/s), q = RN(v·r), e = v − q·s exact by fma, q' = RN(q + e·r), sign of v) against the
// correctly rounded v / s, for every finite float v, for several s > 0: whether the fp8 layer norm may divide by its
// scale so (v·r then two FMAs) and still write __fdiv_rn's E4M3 bytes (docs/benchmarks/cuda.md, 2026-11-29: not on
// main until a GPU has run it). IEEE single arithmetic rounds the same on the CPU and the GPU.
//   gcc -O2 -ffp-contract=off -o /tmp/markstein tools/bench/fp8/markstein-division.c -lm && /tmp/markstein 0.17025528 0.0935302
// Rows mode, `/tmp/markstein --rows N SEED` (~1.5 s a scale): the per-row scales of the *_regs quantisation kernels,
// s = RN(amax / 448), whose quotients are at most ~448 — N random scales in [2^-60, 2^60] (random significands) and
// eight hard significands (1, 1 + ulp, all ones, 1.5, …); for each, every v whose quotient lies in [2^-11, 2^10)
// (smaller ones are ±0 in E4M3 either way), which must be __fdiv_rn's float exactly. 2026-11-29, 2-core development
// machine, `--rows 150 7`: 158 scales, 0 quotients differ (3.5 minutes).
// (~8 s a scale.) 2026-11-29, 2-core development machine: 0 of 4,278,190,080 finite v with |v| ≤ 2^100 give other E4M3
// bytes, and 0 quotients differ in [2^-10, 2^20], for s = 0.170255288, 0.0935301855, 0.0272306688 (the GPU suite's
// layer norms' static scales), 1, 0.000123, 0.0037, 0.5, 0.00223214272 and 9.87654305.
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <stdlib.h>
static float f(uint32_t u) { float x; memcpy(&x, &u, 4); return x; }
static uint32_t u(float x) { uint32_t a; memcpy(&a, &x, 4); return a; }
// Rows mode: the quotients a row's own amax allows, for one scale; returns how many differ from v / s.
static uint64_t checkRowScale(float s) {
  const float r = 1.0f / s;
  uint64_t bad = 0;
  int e;
  frexpf(s, &e);
  const float lo = ldexpf(1.0f, e - 13), hi = ldexpf(1.0f, e + 11);  // v whose quotients cover [2^-11, 2^10)
  for (uint32_t i = u(lo); i < u(hi); i++) {
    const float v = f(i);
    const float want = v / s;
    const float q = v * r;
    const float got = copysignf(fmaf(fmaf(-q, s, v), r, q), v);
    if (u(got) != u(want) && fabsf(want) >= 0x1p-11f) { if (bad < 3) printf("  s %a v %a want %a got %a\n", s, v, want, got); bad++; }
  }
  return bad;
}
static int rowsMode(int n, unsigned seed) {
  static const uint32_t hard[] = {0x3f800000, 0x3f800001, 0x3fffffff, 0x3fc00000, 0x3faaaaab, 0x3fb504f3, 0x3ff00000, 0x3f800fff};
  const int nHard = sizeof hard / sizeof hard[0];
  srand(seed);
  uint64_t bad = 0;
  for (int k = 0; k < nHard + n; k++) {
    const float s = k < nHard ? f(hard[k]) : ldexpf(f(0x3f800000u | ((((uint32_t)rand() << 8) ^ (uint32_t)rand()) & 0x7fffff)), rand() % 121 - 60);
    bad += checkRowScale(s);
  }
  printf("rows, seed %u: %d scales, %llu quotients in [2^-11, 2^10) differ from v / s\n", seed, nHard + n, (unsigned long long)bad);
  return bad != 0;
}
int main(int argc, char** argv) {
  if (argc == 4 && strcmp(argv[1], "--rows") == 0) return rowsMode(atoi(argv[2]), (unsigned)atoi(argv[3]));
  const int n = argc - 1;
  for (int k = 0; k < n; k++) {
    const float s = strtof(argv[k + 1], 0);
    const float r = 1.0f / s;  // RN(1/s) in IEEE single (the GPU's __frcp_rn)
    uint64_t bad = 0, badNormal = 0, checked = 0;
    for (uint64_t i = 0; i < (1ull << 32); i++) {
      const float v = f((uint32_t)i);
      if (!isfinite(v)) continue;
      const float want = v / s;  // IEEE single division, round to nearest
      const float q = v * r;
      const float e = fmaf(-q, s, v);
      const float got = copysignf(fmaf(e, r, q), v);
      checked++;
      // What E4M3 (round to nearest even, saturating) makes of them is the same when both are below 2^-10 with the
      // same sign (±0), both finite and above 2^19 (448), or the same float.
      const int same_e4m3 = u(got) == u(want)
        || (fabsf(got) < 0x1p-10f && fabsf(want) < 0x1p-10f && signbit(got) == signbit(want))
        || (isfinite(got) && fabsf(got) > 0x1p19f && fabsf(want) > 0x1p19f && signbit(got) == signbit(want));
      if (!same_e4m3 && fabsf(v) <= 0x1p100f) { if (bad < 3) printf("  E4M3 may differ: s %a v %a want %a got %a\n", s, v, want, got); bad++; }
      if (u(got) != u(want) && !(isnan(got) && isnan(want))) {
        if (fabsf(want) >= 0x1p-10f && fabsf(want) <= 0x1p20f) { if (badNormal < 3) printf("  s %a v %a want %a got %a\n", s, v, want, got); badNormal++; }
      }
    }
    printf("s = %.9g: %llu of %llu finite v with |v| <= 2^100 may give other E4M3 bytes; %llu quotients differ in [2^-10, 2^20]\n", s, (unsigned long long)bad, (unsigned long long)checked, (unsigned long long)badNormal);
  }
}
