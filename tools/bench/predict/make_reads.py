"""150-bp reads sampled from real genomes (both strands, uniform positions, seeded) until they hold N stop-free
frames, the input of the 1M-frame `predict` benchmark. Runs on the GPU machine from the genomes' FASTA files
(phage lambda: test-data/lambda_virus.fa; E. coli 536: Debian bowtie-examples' NC_008253.fna.gz).
  python3 tools/bench/predict/make_reads.py --frames 1000000 --out /tmp/reads.fa GENOME.fa[.gz] ...
Prints JSON: reads, frames, bases per genome."""
import argparse, gzip, json, os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from virnucpro_prep import COMPLEMENT, stop_free_frames  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("genomes", nargs="+")
p.add_argument("--frames", type=int, default=1_000_000)
p.add_argument("--length", type=int, default=150)
p.add_argument("--out", required=True)
p.add_argument("--seed", type=int, default=5)
args = p.parse_args()


def sequence(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return "".join(line.strip() for line in f if not line.startswith(">")).upper()


genomes = [(os.path.basename(g).split(".")[0], sequence(g)) for g in args.genomes]
rng = random.Random(args.seed)
reads = frames = 0
with open(args.out, "w") as out:
    while frames < args.frames:
        name, genome = genomes[reads % len(genomes)]
        start = rng.randrange(0, len(genome) - args.length)
        read = genome[start:start + args.length]
        if rng.random() < 0.5:
            read = read.translate(COMPLEMENT)[::-1]
        reads += 1
        frames += len(stop_free_frames("r", read))
        out.write(f">read{reads}_{name}_{start}\n{read}\n")
print(json.dumps({"reads": reads, "frames": frames, "length": args.length, "genomes": {n: len(g) for n, g in genomes}}))
