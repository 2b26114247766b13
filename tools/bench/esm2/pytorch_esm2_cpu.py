"""PyTorch CPU reference for ESM-2 (plain torch, no transformers): the speed a Python user gets on the same cores.

Three jobs, so that ours and this run on the same files:
  --write-model DIR   a random ESM-2 of --size as a Hugging Face folder (config.json + model.safetensors, the names
                      transformers writes) that `virnucpro embed esm2 --model DIR` reads;
  --write-fasta FILE  --proteins random proteins of --residues residues (seeded);
  --fasta FILE --model DIR   embeds them: fp32 eager, length-sorted padded batches of at most --token-budget tokens
                      (the original VirNucPro batches the same way), torch's default threads unless --threads;
                      mean of the last hidden state over residues. Prints one JSON line (tokens/s of the embedding
                      phase, load time, threads, torch version); --means-out FILE writes the means as float32.
Works with Debian's python3-torch (1.13) and any later torch. Example:
  python3 tools/bench/esm2/pytorch_esm2_cpu.py --size 35M --write-model /tmp/esm2-35m --write-fasta /tmp/p.fa
  python3 tools/bench/esm2/pytorch_esm2_cpu.py --model /tmp/esm2-35m --fasta /tmp/p.fa
"""
import argparse, json, math, os, struct, sys, time, datetime
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dnabert"))
from pytorch_dnabert import length_sorted_batches, load_file, read_fasta  # noqa: E402  (one implementation each for the Python references)

SIZES = {"8M": (6, 320, 20), "35M": (12, 480, 20), "150M": (30, 640, 20), "650M": (33, 1280, 20), "3B": (36, 2560, 40)}
ALPHABET = "<cls> <pad> <eos> <unk> L A G V S E R T I D P K Q N F Y M H W C X B U Z O . - <null_1> <mask>".split()
AMINO = "LAGVSERTIDPKQNFYMHWC"
TOKEN = {t: i for i, t in enumerate(ALPHABET)}

p = argparse.ArgumentParser()
p.add_argument("--size", default="35M")
p.add_argument("--write-model")
p.add_argument("--write-fasta")
p.add_argument("--proteins", type=int, default=1500)
p.add_argument("--residues", type=int, default=50)
p.add_argument("--model")
p.add_argument("--fasta")
p.add_argument("--token-budget", type=int, default=4096)
p.add_argument("--threads", type=int, default=0)
p.add_argument("--means-out")
args = p.parse_args()


def write_safetensors(path, tensors):
    """tensors: name -> (shape, make) where make() returns the tensor; made and written one at a time, so a 3B model
    never sits in memory whole (11.4 GB in fp32)."""
    header, offset = {}, 0
    for name, (shape, _) in tensors.items():
        size = 4 * math.prod(shape)
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    raw = json.dumps(header).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)) + raw)
        for name, (shape, make) in tensors.items():
            f.write(make().detach().contiguous().float().numpy().tobytes())


def write_model(folder, size):
    layers, d, heads = SIZES[size]
    g = torch.Generator().manual_seed(11)
    # name -> (shape, make): drawn in file order from one seeded generator when written.
    u = lambda *shape, scale=1.0, offset=0.0: (shape, lambda: offset + scale * (torch.rand(*shape, generator=g) * 2 - 1) * (1 / math.sqrt(shape[-1])))
    hd = d // heads
    inv_freq = 1.0 / (10000 ** (torch.arange(0, hd, 2).float() / hd))
    t = {"esm.embeddings.word_embeddings.weight": u(33, d), "esm.encoder.emb_layer_norm_after.weight": u(d, scale=0.1, offset=1.0),
         "esm.encoder.emb_layer_norm_after.bias": u(d, scale=0.1)}
    for i in range(layers):
        pre = f"esm.encoder.layer.{i}."
        for name in ["attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"]:
            t[pre + name + ".weight"], t[pre + name + ".bias"] = u(d, d), u(d, scale=0.1)
        t[pre + "attention.self.rotary_embeddings.inv_freq"] = (tuple(inv_freq.shape), lambda: inv_freq)
        t[pre + "intermediate.dense.weight"], t[pre + "intermediate.dense.bias"] = u(4 * d, d), u(4 * d, scale=0.1)
        t[pre + "output.dense.weight"], t[pre + "output.dense.bias"] = u(d, 4 * d), u(d, scale=0.1)
        for ln in ["attention.LayerNorm", "LayerNorm"]:
            t[pre + ln + ".weight"], t[pre + ln + ".bias"] = u(d, scale=0.1, offset=1.0), u(d, scale=0.1)
    os.makedirs(folder, exist_ok=True)
    write_safetensors(os.path.join(folder, "model.safetensors"), t)
    config = {"architectures": ["EsmModel"], "model_type": "esm", "vocab_size": 33, "mask_token_id": 32, "pad_token_id": 1,
              "hidden_size": d, "num_hidden_layers": layers, "num_attention_heads": heads, "intermediate_size": 4 * d,
              "max_position_embeddings": 1026, "layer_norm_eps": 1e-05, "position_embedding_type": "rotary",
              "emb_layer_norm_before": False, "token_dropout": True, "hidden_act": "gelu", "_name_or_path": f"random-esm2-{size}"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)


def write_fasta(path, n, residues):
    g = torch.Generator().manual_seed(5)
    with open(path, "w") as f:
        for i in range(n):
            idx = torch.randint(0, len(AMINO), (residues,), generator=g).tolist()
            f.write(f">p{i}\n{''.join(AMINO[j] for j in idx)}\n")


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Esm2:
    """ESM-2 as fair-esm / transformers compute it: token-dropout rescale, pre-LN blocks with rotary q/k, exact GELU."""

    def __init__(self, folder):
        cfg = json.load(open(os.path.join(folder, "config.json")))
        self.w = load_file(os.path.join(folder, "model.safetensors"))
        self.layers, self.d, self.heads = cfg["num_hidden_layers"], cfg["hidden_size"], cfg["num_attention_heads"]
        self.eps = cfg.get("layer_norm_eps", 1e-5)
        self.hd = self.d // self.heads

    def lin(self, x, name):
        return F.linear(x, self.w[name + ".weight"], self.w[name + ".bias"])

    def ln(self, x, name):
        return F.layer_norm(x, (self.d,), self.w[name + ".weight"], self.w[name + ".bias"], self.eps)

    @torch.no_grad()
    def means(self, ids, lengths):
        B, T = ids.shape
        pad = ids == TOKEN["<pad>"]
        x = F.embedding(ids, self.w["esm.embeddings.word_embeddings.weight"]) * (1 - 0.15 * 0.8)
        x = x * (~pad).unsqueeze(-1)
        bias = torch.zeros(B, 1, 1, T).masked_fill(pad[:, None, None, :], float("-inf"))
        inv_freq = self.w["esm.encoder.layer.0.attention.self.rotary_embeddings.inv_freq"]
        freqs = torch.outer(torch.arange(T).float(), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        cos, sin = emb.cos()[None, None], emb.sin()[None, None]
        split = lambda t: t.view(B, T, self.heads, self.hd).transpose(1, 2)
        for i in range(self.layers):
            pre = f"esm.encoder.layer.{i}."
            h = self.ln(x, pre + "attention.LayerNorm")
            q = split(self.lin(h, pre + "attention.self.query")) * self.hd ** -0.5
            k = split(self.lin(h, pre + "attention.self.key"))
            v = split(self.lin(h, pre + "attention.self.value"))
            q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
            probs = torch.softmax(q @ k.transpose(-1, -2) + bias, dim=-1)
            ctx = (probs @ v).transpose(1, 2).reshape(B, T, self.d)
            x = x + self.lin(ctx, pre + "attention.output.dense")
            h = self.ln(x, pre + "LayerNorm")
            x = x + self.lin(F.gelu(self.lin(h, pre + "intermediate.dense")), pre + "output.dense")
        x = self.ln(x, "esm.encoder.emb_layer_norm_after")
        return [x[b, 1:n - 1].mean(0) for b, n in enumerate(lengths)]


if args.write_model:
    write_model(args.write_model, args.size)
if args.write_fasta:
    write_fasta(args.write_fasta, args.proteins, args.residues)
if args.model and args.fasta:
    if args.threads:
        torch.set_num_threads(args.threads)
    t0 = time.time()
    model = Esm2(args.model)
    records = read_fasta(args.fasta)
    tokens = [[TOKEN["<cls>"]] + [TOKEN.get(c, TOKEN["<unk>"]) for c in s] + [TOKEN["<eos>"]] for _, s in records]
    lengths = [len(t) for t in tokens]
    load = time.time() - t0
    means = [None] * len(tokens)
    t1 = time.time()
    for batch in length_sorted_batches(lengths, args.token_budget):
        T = max(lengths[i] for i in batch)
        ids = torch.full((len(batch), T), TOKEN["<pad>"], dtype=torch.long)
        for r, i in enumerate(batch):
            ids[r, :lengths[i]] = torch.tensor(tokens[i])
        for r, m in zip(batch, model.means(ids, [lengths[i] for i in batch])):
            means[r] = m
    seconds = time.time() - t1
    if args.means_out:
        torch.stack(means).numpy().astype("float32").tofile(args.means_out)
    print(json.dumps({"what": "pytorch-cpu-esm2", "torch": torch.__version__, "threads": torch.get_num_threads(),
                      "proteins": len(tokens), "tokens": sum(lengths), "tokenBudget": args.token_budget, "loadSeconds": round(load, 2),
                      "embedSeconds": round(seconds, 2), "tokensPerSecond": round(sum(lengths) / seconds, 1),
                      "date": datetime.datetime.utcnow().isoformat(timespec="seconds") + "Z"}))
