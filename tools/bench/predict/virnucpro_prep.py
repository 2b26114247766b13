"""VirNucPro's data preparation as the original does it (../shared/docs/virnucpro-reference.md §1.1–1.2), in plain
Python for the PyTorch reference pipeline and the read generator: chunking, six-frame translation keeping every
stop-free frame, with the original's ids and nucleotide slices (3p + 1 nt, off-by-one included)."""
import math

BASES = "TCAG"
AMINO = "FFLLSSSSYY**CC*WLLLLPPPPHHQQRRRRIIIMTTTTNNKKSSRRVVVVAAAADDEEGGGG"
CODONS = {a + b + c: AMINO[16 * i + 4 * j + k] for i, a in enumerate(BASES) for j, b in enumerate(BASES) for k, c in enumerate(BASES)}
COMPLEMENT = str.maketrans("ACGTacgt", "TGCAtgca")


def read_fasta(path):
    """(id, sequence) per record; id = header up to the first whitespace."""
    rid, parts = None, []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith(">"):
                if rid is not None:
                    yield rid, "".join(parts)
                rid, parts = line[1:].split()[0], []
            elif line:
                parts.append(line.strip())
    if rid is not None:
        yield rid, "".join(parts)


def chunks(records, size):
    """The original's overlap chunker (every record ≤ size: one `_chunk_1` each)."""
    records = list(records)
    if all(len(s) <= size for _, s in records):
        return [(f"{rid}_chunk_1", s) for rid, s in records]
    out = []
    for rid, s in records:
        L = len(s)
        n = math.ceil(L / size)
        R = n * size - L
        q = int(R / n)
        u = R - q * (n - 1)
        b = [q + 1] * u + [q] * max(n - 1 - u, 0) + [0]
        move = 0
        for k, a in enumerate(range(0, L, size)):
            start = a if a <= 1 else a - move
            out.append((f"{rid}_chunk_{a // size + 1}", s[start:start + size]))
            move += b[k]
    return out


def translate(s, offset):
    return "".join(CODONS.get(s[i:i + 3], "") for i in range(offset, len(s) - 2, 3))


def stop_free_frames(chunk_id, seq):
    """(frame id, nucleotide slice, protein) for every frame without a stop: F1..F3 then R1..R3."""
    s = seq.upper()
    rc = s.translate(COMPLEMENT)[::-1]
    frames = []
    for strand, text in (("F", s), ("R", rc)):
        for k in range(1, 4):
            protein = translate(text, k - 1)
            if "*" not in protein and protein:
                frames.append((f"{chunk_id}{strand}{k}", text[k - 1:k + 3 * len(protein)], protein))
    return frames
