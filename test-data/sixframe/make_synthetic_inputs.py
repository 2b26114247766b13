"""Writes the synthetic prep inputs in inputs/ (deterministic; rerun to regenerate, never edit by hand).

Records are built to exercise VirNucPro's chunk arithmetic (lengths from the worked examples of the
reference, section 1.1) and six-frame rules: sequences over {A, C, G} (+ IUPAC letters) contain no stop codon in
any frame on either strand, so every frame is kept; mixed case, IUPAC letters, RNA 'U' and odd symbols check
uppercasing, dropped codons and the reverse complement that leaves IUPAC letters alone.
"""
import random

rng = random.Random(20261121)

def seq(n, alphabet, weights=None):
    return ''.join(rng.choices(alphabet, weights=weights, k=n))

def wrap(s, width):
    if width == 0:
        return s + '\n' if s else ''
    return ''.join(s[i:i + width] + '\n' for i in range(0, len(s), width))

records = [
    # header, sequence, line width
    ('multi_1234 three chunks at C=500, ACG only', seq(1234, 'ACG'), 60),
    ('multi_501\tsecond chunk starts at 250', seq(501, 'ACGT'), 70),
    ('multi_900', seq(900, 'ACGacg'), 80),
    ('multi_999', seq(999, 'ACGN', [30, 30, 30, 1]), 0),
    ('multi_1000 no overlap', seq(1000, 'ACGRYKMSWBDHVN'), 61),
    ('multi_2001', seq(2001, 'acgt'), 60),
    ('multi_10007 21 chunks', seq(10007, 'ACGacgN', [10, 10, 10, 10, 10, 10, 1]), 60),
    ('multi_14972 mixed 0/1 overlaps', seq(14972, 'ACGTN', [25, 25, 25, 5, 1]), 100),
    ('exact_500', seq(500, 'ACG'), 60),
    ('exact_300', seq(300, 'ACGT', [30, 30, 30, 1]), 60),
    ('short_174', seq(174, 'ACG'), 60),
    ('short_5', 'ATGCA', 60),
    ('short_4', 'ATGC', 60),
    ('short_3', 'TAA', 60),
    ('short_2', 'AC', 60),
    ('short_1', 'G', 60),
    ('iupac_demo', 'ATGNNNATG' + seq(291, 'ACGRYN', [20, 20, 20, 1, 1, 1]), 60),
    ('rna_and_symbols', seq(650, 'ACGU*-.', [30, 30, 30, 3, 1, 1, 1]), 60),
    ('lower_650', seq(650, 'acg'), 60),
]

with open('inputs/synthetic_multi.fa', 'w', newline='\n') as out:
    for header, s, width in records:
        out.write(f'>{header}\n{wrap(s, width)}')
        if header.startswith('multi_900'):
            out.write('\n')  # a blank line between records

# The same kind of content with Windows line ends.
with open('inputs/crlf_lines.fa', 'w', newline='\r\n') as out:
    out.write('>crlf_700 windows line ends\n' + wrap(seq(700, 'ACGacgN', [9, 9, 9, 9, 9, 9, 1]), 60))
    out.write('>crlf_320\n' + wrap(seq(320, 'ACGT'), 60))
