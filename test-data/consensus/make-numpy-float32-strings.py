"""Writes numpy-float32-strings.tsv: float32 bit patterns and what numpy prints for them.

Columns: bits (8 hex digits), str(np.float32) with numpy's current rules, and the same under
np.set_printoptions(legacy='2.2') (positional up to 1e16). Run: python3 make-numpy-float32-strings.py
(needs numpy >= 2.3). The strings come from numpy, not from this project.
"""
import numpy as np

rng = np.random.default_rng(20261121)
bits = set()

def add(values):
    for v in np.asarray(values, dtype=np.float32).ravel():
        bits.add(int(v.view(np.uint32)))

def neighbours(v, k=4):
    b = int(np.float32(v).view(np.uint32))
    return [np.uint32(b + d).view(np.float32) for d in range(-k, k + 1) if 0 <= b + d < 0x7f800000]

add(rng.integers(0, 2**32, 12000, dtype=np.uint64).astype(np.uint32).view(np.float32))
add(rng.random(12000, dtype=np.float32))                      # probabilities
add(10.0 ** rng.uniform(-12, 0, 3000))                        # small scores
add(1 - 10.0 ** rng.uniform(-8, -1, 1000))                    # scores near 1
add(rng.integers(1, 2**23, 500).astype(np.uint32).view(np.float32))  # subnormals
for k in range(-45, 39):
    add(neighbours(float(f"1e{k}")))
for k in range(-149, 128):
    add(neighbours(2.0 ** k))
for v in (1e-4, 1e6, 1e16, 9.9999e-5, 999999.94, 0.5, 1.0, 3.4028235e38, 1.1754944e-38):
    add(neighbours(v, 16))
specials = [0x00000000, 0x80000000, 0x7fc00000, 0x7f800000, 0xff800000, 0x00000001, 0x7f7fffff]
bits.update(specials)
all_bits = sorted(b for b in bits if (b & 0x7f800000) != 0x7f800000 or b in specials)

with open("numpy-float32-strings.tsv", "w") as out:
    out.write(f"# numpy {np.__version__}: bits\tstr(np.float32)\tstr with legacy='2.2'\n")
    rows = [(b, str(np.uint32(b).view(np.float32))) for b in all_bits]
    np.set_printoptions(legacy="2.2")
    for b, s in rows:
        out.write(f"{b:08x}\t{s}\t{str(np.uint32(b).view(np.float32))}\n")
