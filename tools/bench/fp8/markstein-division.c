// Markstein's quotient (r = RN(1/s), q = RN(v·r), e = v − q·s exact by fma, q' = RN(q + e·r), sign of v) against the
// correctly rounded v / s, for every finite float v, for several s > 0: whether the fp8 layer norm may divide by its
// scale so (v·r then two FMAs) and still write __fdiv_rn's E4M3 bytes (docs/benchmarks/cuda.md, 2026-11-29: not on
// main until a GPU has run it). IEEE single arithmetic rounds the same on the CPU and the GPU.
//   gcc -O2 -ffp-contract=off -o /tmp/markstein tools/bench/fp8/markstein-division.c -lm && /tmp/markstein 0.17025528 0.0935302
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
int main(int argc, char** argv) {
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
