"""PyTorch reference for DNABERT-S (MosaicBERT) on the GPU machine (or a CPU: --device cpu): fixture parity, then throughput.

A plain PyTorch re-statement of MosaicBERT's `bert_layers.py` inference path as DNABERT-S ships it, taken when
Triton is absent (as VirNucPro's README asks: `pip uninstall triton`): the encoder un-pads the batch once, runs every
Linear / LayerNorm / GeGLU on the real tokens only, re-pads q, k, v per layer for the attention matmuls
(scores = q·kᵀ/√d + ALiBi + key-padding bias −10000; softmax; ·v) and un-pads the result; post-LN layers; the
embedding is LN(word + token-type 0) without positions. Weight names as the DNABERT-S checkpoint (no `bert.` prefix).
See ../shared/docs/models-reference.md section B for the line-by-line source.

  python3 tools/bench/dnabert/pytorch_dnabert.py --check test-data/dnabert/tiny
  python3 tools/bench/dnabert/pytorch_dnabert.py --token-lengths /tmp/dnabert-lengths.json --token-budgets 4096,8192,16384,32768

--check: fp32 hidden states and means of the fixture's sequences against its expected.safetensors (the fixture
tolerances: hidden ≤ 1e-4, means ≤ 1e-5), so the timed model is known to be DNABERT-S's.
--token-lengths: JSON {set name: [tokens per sequence, ...]} (bench-dnabert --lengths-out writes it from the same
DNA our side embeds). Random weights at the DNABERT-S size (117M), fp16; per set and budget: sequences sorted by
length, as many per padded batch as fit (longest × count ≤ budget), 2 warm-up batches, means included; tokens/s
counts real tokens. Prints one JSON object; each run also on stderr as it finishes. --modes eager,compile adds
torch.compile(model, dynamic=True) (every batch once untimed first: compilation apart, its best case).
--device cpu --dtype float32 [--threads N]: the CPU reference (Debian's python3-torch 1.13 or any later torch; torch's
default threads unless --threads), e.g. against `bench-dnabert --backend onednn` on the same --lengths-out file:
  python3 tools/bench/dnabert/pytorch_dnabert.py --device cpu --dtype float32 --threads 2 --token-lengths /tmp/l.json --token-budgets 4096
--model DIR --fasta FILE: the whole-process reference against `virnucpro embed dnabert --model DIR` on the same FASTA:
reads the folder's config.json, model.safetensors and tokenizer.json (Hugging Face `tokenizers`, as transformers
tokenizes for VirNucPro: pip install tokenizers), embeds every record in length-sorted padded batches of at most
--token-budget tokens (default 4096, as ours off cuda), fp32 unless --dtype, mean over all tokens ([CLS] and [SEP]
included, as VirNucPro); prints one JSON line; --means-out FILE writes the means as float32 in input order.
--write-fasta FILE: --sequences random DNA records of --length bp (seeded), for both sides.
  node tools/make-demo-models.mjs /tmp/dnabert-full --dnabert 12,768,12,3072   # random weights, DNABERT-S size
  python3 tools/bench/dnabert/pytorch_dnabert.py --write-fasta /tmp/dna.fa --sequences 400 --length 300
  python3 tools/bench/dnabert/pytorch_dnabert.py --device cpu --dtype float32 --model /tmp/dnabert-full/dnabert-s-demo --fasta /tmp/dna.fa
"""
import argparse, datetime, json, math, os, struct, time
import torch
import torch.nn as nn
import torch.nn.functional as F

PEAK_TFLOPS = 989.4  # dense fp16 tensor-core peak of an H100/H200 SXM, for MFU


def alibi_slopes(n):
    """MosaicBERT's rule: powers of a start value; a non-power-of-two count interleaves the next power's slopes."""
    def power_of_two(m):
        start = 2 ** (-(2 ** -(math.log2(m) - 3)))
        return [start ** (k + 1) for k in range(m)]
    if math.log2(n).is_integer():
        return power_of_two(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_two(c) + power_of_two(2 * c)[0::2][: n - c]


class Layer(nn.Module):
    def __init__(self, d, inter, eps):
        super().__init__()
        self.Wqkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.attn_ln = nn.LayerNorm(d, eps=eps)
        self.gated = nn.Linear(d, 2 * inter, bias=False)
        self.wo = nn.Linear(inter, d)
        self.mlp_ln = nn.LayerNorm(d, eps=eps)
        self.inter = inter


class MosaicBert(nn.Module):
    def __init__(self, vocab, d, layers, heads, inter, eps=1e-12):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.token_type = nn.Embedding(2, d)
        self.emb_ln = nn.LayerNorm(d, eps=eps)
        self.layers = nn.ModuleList(Layer(d, inter, eps) for _ in range(layers))
        self.d, self.heads = d, heads
        self.register_buffer("slopes", torch.tensor(alibi_slopes(heads)), persistent=False)

    def checkpoint_names(self):
        """Our parameter name → the DNABERT-S checkpoint's (save_pretrained of BertModel, no `bert.` prefix)."""
        mine = {"word.weight": "embeddings.word_embeddings.weight", "token_type.weight": "embeddings.token_type_embeddings.weight",
                "emb_ln.weight": "embeddings.LayerNorm.weight", "emb_ln.bias": "embeddings.LayerNorm.bias"}
        per_layer = {"Wqkv": "attention.self.Wqkv", "out": "attention.output.dense", "attn_ln": "attention.output.LayerNorm",
                     "gated": "mlp.gated_layers", "wo": "mlp.wo", "mlp_ln": "mlp.layernorm"}
        for i in range(len(self.layers)):
            for ours, theirs in per_layer.items():
                for p in ("weight", "bias"):
                    if not (ours == "gated" and p == "bias"):
                        mine[f"layers.{i}.{ours}.{p}"] = f"encoder.layer.{i}.{theirs}.{p}"
        return mine

    def load_checkpoint(self, state):
        self.load_state_dict({k: state[v] for k, v in self.checkpoint_names().items()}, strict=True)

    def checkpoint_state(self):
        params = dict(self.named_parameters())
        return {theirs: params[ours].detach().contiguous() for ours, theirs in self.checkpoint_names().items()}

    def forward(self, ids, mask):
        """ids, mask: [B, T] (padded). Returns hidden states [B, T, d] (zeros at padding)."""
        B, T = ids.shape
        H, Dh = self.heads, self.d // self.heads
        x = self.emb_ln(self.word(ids) + self.token_type.weight[0])
        keep = torch.nonzero(mask.flatten(), as_tuple=False).flatten()
        x = x.reshape(B * T, self.d)[keep]  # un-padded once: [nnz, d]
        pos = torch.arange(T, device=ids.device)
        alibi = -self.slopes[:, None, None] * (pos[None, :] - pos[:, None]).abs()[None]  # [H, T, T], fp32
        bias = (alibi[None] + (1.0 - mask[:, None, None, :].float()) * -10000.0).to(x.dtype)  # [B, H, T, T]
        for layer in self.layers:
            qkv = torch.zeros(B * T, 3 * self.d, dtype=x.dtype, device=x.device)
            qkv[keep] = layer.Wqkv(x)
            qkv = qkv.view(B, T, 3, H, Dh)
            q = qkv[:, :, 0].permute(0, 2, 1, 3)
            k = qkv[:, :, 1].permute(0, 2, 3, 1)
            v = qkv[:, :, 2].permute(0, 2, 1, 3)
            probs = F.softmax(torch.matmul(q, k) / math.sqrt(Dh) + bias, dim=-1)
            ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(B * T, self.d)[keep]
            y = layer.attn_ln(x + layer.out(ctx))
            g = layer.gated(y)
            z = F.gelu(g[:, : layer.inter], approximate="none") * g[:, layer.inter:]
            x = layer.mlp_ln(y + layer.wo(z))
        hidden = torch.zeros(B * T, self.d, dtype=x.dtype, device=x.device)
        hidden[keep] = x
        return hidden.view(B, T, self.d)


DEVICE = "cuda"


def synchronize():
    if DEVICE == "cuda":
        torch.cuda.synchronize()


def padded(rows, device):
    T = max(len(r) for r in rows)
    ids = torch.zeros((len(rows), T), dtype=torch.long)
    mask = torch.zeros((len(rows), T), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = torch.tensor(r)
        mask[i, : len(r)] = 1
    return ids.to(device), mask.to(device)


def mean_over_tokens(hidden, mask):
    m = mask[:, :, None].to(hidden.dtype)
    return (hidden * m).sum(1) / m.sum(1)


def load_file(path):
    """A safetensors file's F32 / I32 / I64 tensors as {name: tensor} (no `safetensors` package needed: Debian's
    python3-torch suffices)."""
    dtypes = {"F32": torch.float32, "I32": torch.int32, "I64": torch.int64}
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        out = {}
        for name, meta in header.items():
            if name == "__metadata__":
                continue
            if meta["dtype"] not in dtypes:
                raise SystemExit(f"{path}: {name} is {meta['dtype']}, this reader takes {', '.join(dtypes)}")
            b, e = meta["data_offsets"]
            f.seek(8 + n + b)
            out[name] = torch.frombuffer(bytearray(f.read(e - b)), dtype=dtypes[meta["dtype"]]).reshape(meta["shape"])
        return out


def length_sorted_batches(lengths, budget):
    """Indices into lengths, sorted by length, cut into padded batches of at most budget tokens (longest × count)."""
    batches, cur = [], []
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        if cur and max(lengths[j] for j in cur + [i]) * (len(cur) + 1) > budget:
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    return batches


def load_model(folder, dtype):
    cfg = json.load(open(f"{folder}/config.json"))
    model = MosaicBert(cfg["vocab_size"], cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["intermediate_size"], cfg["layer_norm_eps"])
    model.load_checkpoint(load_file(f"{folder}/model.safetensors"))
    return model.to(DEVICE, dtype).eval()


def read_fasta(path):
    records, name, seq = [], None, []
    for line in open(path):
        line = line.strip()
        if line.startswith(">"):
            if name is not None:
                records.append((name, "".join(seq)))
            name, seq = line[1:].split()[0], []
        elif line:
            seq.append(line)
    if name is not None:
        records.append((name, "".join(seq)))
    return records


def write_fasta(path, count, length):
    g = torch.Generator().manual_seed(5)
    with open(path, "w") as f:
        for i in range(count):
            f.write(f">s{i}\n{''.join('ACGT'[j] for j in torch.randint(0, 4, (length,), generator=g).tolist())}\n")


def embed_fasta(folder, fasta, budget, dtype, means_out):
    """The whole job a Python user runs: load, tokenize, embed in padded length-sorted batches, means."""
    from tokenizers import Tokenizer
    t0 = time.time()
    model = load_model(folder, dtype)
    tokenizer = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    tokenizer.no_padding()
    tokenizer.no_truncation()
    records = read_fasta(fasta)
    rows = [e.ids for e in tokenizer.encode_batch([s for _, s in records])]
    lengths = [len(r) for r in rows]
    load = time.time() - t0
    means = [None] * len(rows)
    t1 = time.time()
    with torch.inference_mode():
        for batch in length_sorted_batches(lengths, budget):
            ids, mask = padded([rows[i] for i in batch], DEVICE)
            for i, m in zip(batch, mean_over_tokens(model(ids, mask), mask).float().cpu()):
                means[i] = m
    seconds = time.time() - t1
    if means_out:
        torch.stack(means).numpy().astype("float32").tofile(means_out)
    return {"sequences": len(rows), "tokens": sum(lengths), "tokenBudget": budget, "loadSeconds": round(load, 2),
            "embedSeconds": round(seconds, 2), "tokensPerSecond": round(sum(lengths) / seconds, 1)}


def check(folder):
    model = load_model(folder, torch.float32)
    rows = json.load(open(f"{folder}/inputs.json"))["token_ids"]
    expected = load_file(f"{folder}/expected.safetensors")
    with torch.inference_mode():
        ids, mask = padded(rows, DEVICE)
        hidden = model(ids, mask)
        means = mean_over_tokens(hidden, mask)
    hidden_max = max((hidden[i, : len(r)].cpu() - expected[f"hidden.{i}"].reshape(len(r), -1)).abs().max().item() for i, r in enumerate(rows))
    mean_max = max((means[i].cpu() - expected[f"mean.{i}"].flatten()).abs().max().item() for i in range(len(rows)))
    return {"sequences": len(rows), "hiddenMaxAbs": hidden_max, "meanMaxAbs": mean_max, "pass": hidden_max <= 1e-4 and mean_max <= 1e-5}


def throughput(token_lengths, budgets, dtype, modes=("eager",)):
    """Per mode (eager; compile = torch.compile(model, dynamic=True), default mode): every set and budget timed.
    Compiled: every batch of the set runs once untimed first (compilation and any recompilation for new shapes,
    reported apart as warmupSeconds), so the timed pass is the compiled model's best case."""
    model = MosaicBert(4096, 768, 12, 12, 3072).to(DEVICE, dtype).eval()
    d, layers = 768, 12
    matmul_params = layers * (3 * d * d + d * d + 2 * 3072 * d + 3072 * d)
    out = {}
    for mode in modes:
        forward = torch.compile(model, dynamic=True) if mode == "compile" else model
        g = torch.Generator().manual_seed(7)
        runs = []
        for name, lengths in token_lengths.items():
            for budget in budgets:
                batches = [[lengths[i] for i in b] for b in length_sorted_batches(lengths, budget)]
                data = []
                for batch in batches:
                    rows = [[1] + torch.randint(5, 4096, (n - 2,), generator=g).tolist() + [2] for n in batch]
                    data.append(padded(rows, DEVICE))
                with torch.inference_mode():
                    t0 = time.perf_counter()
                    for ids, mask in (data if mode == "compile" else data[:2]):
                        mean_over_tokens(forward(ids, mask), mask)
                    synchronize()
                    warmup = time.perf_counter() - t0
                    t0 = time.perf_counter()
                    for ids, mask in data:
                        mean_over_tokens(forward(ids, mask), mask).float().cpu()
                    synchronize()
                    seconds = time.perf_counter() - t0
                tokens = sum(lengths)
                flop = 2 * matmul_params * tokens + sum(4 * n * n * d * layers for n in lengths)
                padded_tokens = sum(max(b) * len(b) for b in batches)
                runs.append({"mode": mode, "set": name, "meanTokens": round(tokens / len(lengths), 1), "tokenBudget": budget, "batches": len(batches),
                             "sequences": len(lengths), "realTokens": tokens, "paddedTokens": padded_tokens, "warmupSeconds": round(warmup, 2),
                             "seconds": round(seconds, 3), "tokensPerSecond": round(tokens / seconds), "gflops": round(flop / seconds / 1e9, 1),
                             **({"mfu": round(flop / seconds / 1e12 / PEAK_TFLOPS, 3)} if DEVICE == "cuda" else {})})
                print(json.dumps(runs[-1]), file=__import__("sys").stderr, flush=True)
        best = {}
        for r in runs:
            if r["set"] not in best or r["tokensPerSecond"] > best[r["set"]]["tokensPerSecond"]:
                best[r["set"]] = r
        out[mode] = {"runs": runs, "best": {k: {"tokenBudget": v["tokenBudget"], "tokensPerSecond": v["tokensPerSecond"]} for k, v in best.items()}}
    # One mode: the JSON as before (runs, best at the top level); several: one object per mode.
    return out[modes[0]] if len(modes) == 1 else out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--check", default=None)
    p.add_argument("--token-lengths", default=None)
    p.add_argument("--token-budgets", default="4096,8192,16384,32768")
    p.add_argument("--dtype", default="float16")
    p.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    p.add_argument("--threads", type=int, default=0, help="CPU threads (default: torch's own choice)")
    p.add_argument("--model", default=None, help="model folder (config.json, model.safetensors, tokenizer.json) for --fasta")
    p.add_argument("--fasta", default=None)
    p.add_argument("--token-budget", type=int, default=4096)
    p.add_argument("--means-out", default=None)
    p.add_argument("--write-fasta", default=None)
    p.add_argument("--sequences", type=int, default=400)
    p.add_argument("--modes", default="eager", help="eager,compile: also torch.compile(model, dynamic=True) (--token-lengths)")
    p.add_argument("--length", type=int, default=300)
    args = p.parse_args()
    global DEVICE
    DEVICE = args.device
    if args.threads:
        torch.set_num_threads(args.threads)
    if args.write_fasta:
        write_fasta(args.write_fasta, args.sequences, args.length)
        if not (args.model or args.check or args.token_lengths):
            return
    where = {"gpu": torch.cuda.get_device_name(0)} if DEVICE == "cuda" else {"cpu": "cpu", "threads": torch.get_num_threads()}
    out = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), **where, "torch": torch.__version__,
           "model": "DNABERT-S (MosaicBERT, PyTorch attention path)", "dtype": args.dtype}
    if args.check:
        out["check"] = check(args.check)
    if args.token_lengths:
        out.update(throughput(json.load(open(args.token_lengths)), [int(b) for b in args.token_budgets.split(",")], getattr(torch, args.dtype),
                              tuple(args.modes.split(","))))
    if args.model and args.fasta:
        out["what"] = "pytorch-cpu-dnabert" if DEVICE == "cpu" else "pytorch-dnabert"
        out.update(embed_fasta(args.model, args.fasta, args.token_budget, getattr(torch, args.dtype), args.means_out))
        print(json.dumps(out))
        return
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
