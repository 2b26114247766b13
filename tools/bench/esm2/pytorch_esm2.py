"""PyTorch reference throughput for ESM-2 (random weights, released sizes) on the GPU machine.

transformers' EsmModel in fp16 with SDPA attention, batches of real VirNucPro-like protein lengths
(padded per batch, as the original tool batches), tokens/s counted on real tokens only. Prints JSON.
  python3 tools/bench/esm2/pytorch_esm2.py --size 3B --token-budgets 4096,8192,16384,32768 --length-sets 52:101:167
Each length set (tokens incl. BOS/EOS, cycled; sets separated by ':') is sorted by length and run at every budget
after one model load; the JSON lists every run and the best budget per set, for each of --modes:
  eager    the model as loaded;
  compile  torch.compile(model, dynamic=True) (default mode: what a PyTorch user adds in one line); its compilation
           (the first calls, which also warm every later shape) is timed apart, as compileSeconds, and the timed
           batches run after it ("compile-max-autotune" = mode="max-autotune-no-cudagraphs", if it compiles in time).
"""
import argparse, json, time, datetime
import torch
from transformers import EsmConfig, EsmModel

SIZES = {"8M": (6, 320, 20), "35M": (12, 480, 20), "150M": (30, 640, 20), "650M": (33, 1280, 20), "3B": (36, 2560, 40), "15B": (48, 5120, 40)}
p = argparse.ArgumentParser()
p.add_argument("--size", default="3B")
p.add_argument("--token-budget", type=int, default=4096)
p.add_argument("--token-budgets", default=None)
p.add_argument("--length-sets", default=None)
p.add_argument("--sequences", type=int, default=512)
p.add_argument("--lengths", default="101,167")  # tokens incl. BOS/EOS, as bench-esm2.ts (99/165 residues)
p.add_argument("--dtype", default="float16")
p.add_argument("--modes", default="eager,compile")
args = p.parse_args()
layers, d, heads = SIZES[args.size]
config = EsmConfig(vocab_size=33, hidden_size=d, num_hidden_layers=layers, num_attention_heads=heads, intermediate_size=4 * d,
                   position_embedding_type="rotary", token_dropout=True, pad_token_id=1, mask_token_id=32, max_position_embeddings=1026)
dtype = getattr(torch, args.dtype)
try:
    model = EsmModel(config, add_pooling_layer=False, attn_implementation="sdpa")
except TypeError:
    config._attn_implementation = "sdpa"
    model = EsmModel(config, add_pooling_layer=False)
model = model.to("cuda", dtype).eval()
g = torch.Generator().manual_seed(7)
def batches_for(seq_lens, budget):
    """Sequences sorted by length, as many per padded batch as fit the budget (max length × count)."""
    batches, cur = [], []
    for n in sorted(seq_lens):
        if cur and max(cur + [n]) * (len(cur) + 1) > budget:
            batches.append(cur); cur = []
        cur.append(n)
    if cur: batches.append(cur)
    return batches
def make(batch):
    T = max(batch)
    ids = torch.full((len(batch), T), 1, dtype=torch.long)
    mask = torch.zeros((len(batch), T), dtype=torch.long)
    for i, n in enumerate(batch):
        ids[i, 0] = 0; ids[i, n - 1] = 2
        ids[i, 1:n - 1] = torch.randint(4, 24, (n - 2,), generator=g)
        mask[i, :n] = 1
    return ids.cuda(), mask.cuda()
def run(model, seq_lens, budget):
    batches = batches_for(seq_lens, budget)
    data = [make(b) for b in batches]
    with torch.inference_mode():
        # Warm-up: the first two batches and the last (the shortest batch shape of a sorted set), so that a
        # compiled model has met the shapes it will see before the clock starts.
        for ids, mask in data[:2] + data[-1:]:
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for ids, mask in data:
            h = model(input_ids=ids, attention_mask=mask).last_hidden_state
            m = mask.unsqueeze(-1).to(h.dtype)
            (h * m).sum(1) / m.sum(1)
        torch.cuda.synchronize()
        sec = time.perf_counter() - t0
    real = sum(seq_lens)
    return {"lengths": sorted(set(seq_lens)), "tokenBudget": budget, "batches": len(batches), "realTokens": real,
            "paddedTokens": sum(max(b) * len(b) for b in batches), "seconds": round(sec, 3), "tokensPerSecond": round(real / sec)}
budgets = [int(x) for x in (args.token_budgets or str(args.token_budget)).split(",")]
sets = [[int(x) for x in s.split(",")] for s in (args.length_sets or args.lengths).split(":")]
modes = {}
for mode in args.modes.split(","):
    compile_seconds = None
    if mode == "eager":
        m = model
    else:
        kind = {"compile": "default", "compile-max-autotune": "max-autotune-no-cudagraphs"}[mode]
        m = torch.compile(model, dynamic=True, mode=kind)
        # Compilation happens at the first call; dynamic=True makes one graph serve every batch shape.
        ids, mask = make([sets[0][0]] * 4)
        t0 = time.perf_counter()
        with torch.inference_mode():
            m(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        compile_seconds = round(time.perf_counter() - t0, 1)
        print(json.dumps({"mode": mode, "compileSeconds": compile_seconds}), file=__import__("sys").stderr)
    runs = []
    for lengths in sets:
        seq_lens = [lengths[i % len(lengths)] for i in range(args.sequences)]
        for budget in budgets:
            runs.append(run(m, seq_lens, budget))
            print(json.dumps({"mode": mode, **runs[-1]}), file=__import__("sys").stderr)
    best = {",".join(map(str, l)): max((r for r in runs if r["lengths"] == sorted(set(l))), key=lambda r: r["tokensPerSecond"]) for l in sets}
    modes[mode] = {"compileSeconds": compile_seconds, "runs": runs, "best": best, "tokensPerSecond": max(r["tokensPerSecond"] for r in runs)}
print(json.dumps({"date": datetime.datetime.utcnow().isoformat(), "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                  "size": args.size, "dtype": args.dtype, "attention": "sdpa", "sequences": args.sequences, "modes": modes,
                  "parameters": sum(p.numel() for p in model.parameters())}))
