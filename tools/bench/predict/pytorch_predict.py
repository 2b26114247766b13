"""PyTorch reference of the whole VirNucPro prediction, for the `predict` benchmark's ratio (same GPU, same call).

Prep as the original (virnucpro_prep.py: chunking, six frames, stop-free frames), DNABERT-S in fp16 (MosaicBERT's
PyTorch attention path: ../dnabert/pytorch_dnabert.py) and ESM-2 in fp16 with SDPA (transformers EsmModel), each
on length-sorted padded batches of a token budget, the MLP, then prediction_results.txt and
prediction_results_highestscore.csv in the refactor's formats. Models: a folder from make_models.py (models.json).
  python3 tools/bench/predict/pytorch_predict.py READS.fa --models DIR --length 300 --out-dir OUT [--records START:END]
--records runs records START..END-1 (0-based) only: a 1 M-frame reference does not fit one 10-minute device call, so
it runs as parts whose outputs merge_parts.py joins (each part's rows are a contiguous stretch of the whole's).
--compile: both models through torch.compile(model, dynamic=True) (default mode), the reference a PyTorch user gets
with one line; each model's first batch runs once first as stage "compile" (reported apart; the total includes it,
as a user waits for it, and secondsWithoutCompile leaves it out).
Prints JSON: frames, tokens per model, seconds per stage and in total (model loading included).
"""
import argparse, datetime, itertools, json, os, sys, time
import torch
from safetensors.torch import load_file
from tokenizers import Tokenizer
from transformers import EsmModel

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "..", "dnabert"))
from virnucpro_prep import chunks, read_fasta, stop_free_frames  # noqa: E402
from pytorch_dnabert import MosaicBert, mean_over_tokens  # noqa: E402

ESM_ALPHABET = {c: i + 4 for i, c in enumerate("LAGVSERTIDPKQNFYMHWCXBUZO.-")}

p = argparse.ArgumentParser()
p.add_argument("input")
p.add_argument("--models", required=True)
p.add_argument("--length", type=int, default=300)
p.add_argument("--out-dir", required=True)
p.add_argument("--esm-budget", type=int, default=32768)
p.add_argument("--dnabert-budget", type=int, default=65536)
p.add_argument("--records", default=None, help="START:END, 0-based record indices, END exclusive")
p.add_argument("--compile", action="store_true", help="torch.compile(model, dynamic=True) both models (default mode); "
               "the first batch of each model runs once untimed-apart as stage 'compile' (total includes it)")
args = p.parse_args()
record_range = tuple(int(x) for x in args.records.split(":")) if args.records else (0, None)
stages = {}
start = time.perf_counter()


def timed(name, fn):
    t = time.perf_counter()
    result = fn()
    torch.cuda.synchronize()
    stages[name] = round(time.perf_counter() - t, 2)
    print(f"{name}: {stages[name]} s", file=sys.stderr, flush=True)
    return result


def prep():
    records = itertools.islice(read_fasta(args.input), *record_range)
    return [f for cid, seq in chunks(records, args.length) for f in stop_free_frames(cid, seq)]


frames = timed("prep", prep)
models = json.load(open(os.path.join(args.models, "models.json")))


def load():
    dn_dir = os.path.join(args.models, models["dnabert"])
    cfg = json.load(open(os.path.join(dn_dir, "config.json")))
    dn = MosaicBert(cfg["vocab_size"], cfg["hidden_size"], cfg["num_hidden_layers"], cfg["num_attention_heads"], cfg["intermediate_size"], cfg["layer_norm_eps"])
    dn.load_checkpoint(load_file(os.path.join(dn_dir, "model.safetensors")))
    esm = EsmModel.from_pretrained(os.path.join(args.models, models["esm"]), dtype=torch.float16, attn_implementation="sdpa", add_pooling_layer=False)
    mlp = load_file(os.path.join(args.models, models["mlp"][str(args.length)]))
    tokenizer = Tokenizer.from_file(os.path.join(dn_dir, "tokenizer.json"))
    # DNABERT-S's tokenizer.json pads and truncates to 2000 tokens; transformers' tokenizer(seq) (what the original
    # calls) ignores those settings, so the raw tokenizer must too.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return (dn.to("cuda", torch.float16).eval(), tokenizer,
            esm.to("cuda").eval(), {k: v.cuda() for k, v in mlp.items()})


dnabert, tokenizer, esm, mlp = timed("load models", load)
if args.compile:
    dnabert, esm = torch.compile(dnabert, dynamic=True), torch.compile(esm, dynamic=True)


def padded_batches(rows, budget, pad):
    """Length-sorted padded batches (longest × count ≤ budget): (original indices, ids, mask)."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i]))
    start = 0
    while start < len(order):
        end = start + 1
        # ascending lengths: the batch's longest row is its last
        while end < len(order) and len(rows[order[end]]) * (end - start + 1) <= budget:
            end += 1
        batch = order[start:end]
        T = len(rows[batch[-1]])
        ids = torch.full((len(batch), T), pad, dtype=torch.long)
        mask = torch.zeros((len(batch), T), dtype=torch.long)
        for r, j in enumerate(batch):
            ids[r, : len(rows[j])] = torch.tensor(rows[j])
            mask[r, : len(rows[j])] = 1
        yield batch, ids.cuda(non_blocking=True), mask.cuda(non_blocking=True)
        start = end


def embed_dnabert():
    rows = [e.ids for e in tokenizer.encode_batch([f[1] for f in frames])]
    out = torch.empty((len(rows), 768), dtype=torch.float32, device="cuda")
    with torch.inference_mode():
        for idx, ids, mask in padded_batches(rows, args.dnabert_budget, 3):
            out[idx] = mean_over_tokens(dnabert(ids, mask), mask).float()
    return out, sum(len(r) for r in rows)


def embed_esm():
    rows = [[0] + [ESM_ALPHABET.get(c, 3) for c in f[2]] + [2] for f in frames]
    out = torch.empty((len(rows), 2560), dtype=torch.float32, device="cuda")
    with torch.inference_mode():
        for idx, ids, mask in padded_batches(rows, args.esm_budget, 1):
            hidden = esm(input_ids=ids, attention_mask=mask).last_hidden_state
            residues = mask.clone()
            residues[:, 0] = 0
            residues[torch.arange(len(idx), device=mask.device), mask.sum(1) - 1] = 0  # EOS
            out[idx] = mean_over_tokens(hidden, residues).float()
    return out, sum(len(r) for r in rows)


def compile_models():
    """Each compiled model once on its first batch (compilation; dynamic=True keeps later shapes from recompiling)."""
    dn_rows = [e.ids for e in tokenizer.encode_batch([f[1] for f in frames[:4096]])]
    esm_rows = [[0] + [ESM_ALPHABET.get(c, 3) for c in f[2]] + [2] for f in frames[:4096]]
    with torch.inference_mode():
        for _, ids, mask in itertools.islice(padded_batches(dn_rows, args.dnabert_budget, 3), 2):
            dnabert(ids, mask)
        for _, ids, mask in itertools.islice(padded_batches(esm_rows, args.esm_budget, 1), 2):
            esm(input_ids=ids, attention_mask=mask)


if args.compile:
    timed("compile", compile_models)
dn_means, dn_tokens = timed("DNABERT-S", embed_dnabert)
esm_means, esm_tokens = timed("ESM-2", embed_esm)


def classify():
    with torch.inference_mode():
        x = torch.cat([dn_means, esm_means], 1)
        h = x @ mlp["hidden_layer.weight"].T + mlp["hidden_layer.bias"]
        h = (h - mlp["bn1.running_mean"]) / torch.sqrt(mlp["bn1.running_var"] + 1e-5) * mlp["bn1.weight"] + mlp["bn1.bias"]
        logits = torch.relu(h) @ mlp["output_layer.weight"].T + mlp["output_layer.bias"]
        return torch.softmax(logits, 1).cpu()


probs = timed("MLP", classify)


def write():
    os.makedirs(args.out_dir, exist_ok=True)
    groups = {}
    with open(os.path.join(args.out_dir, "prediction_results.txt"), "w") as f:
        f.write("Sequence_ID\tPrediction\tscore1\tscore2\n")
        for (fid, _, _), (s0, s1) in zip(frames, probs.tolist()):
            f.write(f"{fid}\t{'virus' if s1 > s0 else 'others'}\t{s0}\t{s1}\n")
            g = groups.setdefault(fid[:-2], [s0, s1])
            g[0], g[1] = max(g[0], s0), max(g[1], s1)
    with open(os.path.join(args.out_dir, "prediction_results_highestscore.csv"), "w") as f:
        f.write("Modified_ID\tIs_Virus\tmax_score_0\tmax_score_1\n")
        for key, (m0, m1) in groups.items():
            f.write(f"{key}\t{m1 >= m0}\t{m0}\t{m1}\n")


timed("write", write)
total = time.perf_counter() - start
print(json.dumps({"date": datetime.datetime.now(datetime.timezone.utc).isoformat(), "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
                  "records": args.records or "all", "frames": len(frames), "dnabertTokens": dn_tokens, "esmTokens": esm_tokens, "seconds": round(total, 2), "compiled": args.compile,
                  "secondsWithoutCompile": round(total - stages.get("compile", 0), 2), "stages": stages,
                  "framesPerSecond": round(len(frames) / total), "esmTokensPerSecondInStage": round(esm_tokens / stages["ESM-2"]),
                  "peakGpuBytes": torch.cuda.max_memory_allocated()}, indent=1))
