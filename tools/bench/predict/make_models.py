"""Full-size VirNucPro models with RANDOM weights, for throughput runs on the GPU machine (nothing is carried there).

Writes a models folder that `virnucpro predict --models-dir DIR` reads (models.json: esm, dnabert, mlp) and that
pytorch_predict.py loads too, so both pipelines run the same weights:
- esm2-3B/: ESM-2 3B (36 layers, 2560, 40 heads) as a Hugging Face folder, config.json + model.safetensors in fp16
  (5.7 GB; our loader and transformers both read it);
- dnabert-s/: DNABERT-S (MosaicBERT 117M) with checkpoint names, config.json, and the real tokenizer.json;
- mlp-300.safetensors / mlp-500.safetensors: VirNucPro's MLP (3328 → 512 → BatchNorm → ReLU → 2).
Weights are drawn on the GPU (seconds) with the libraries' own initialisations, so activations stay sane.
  python3 tools/bench/predict/make_models.py --out /tmp/models [--tokenizer test-data/dnabert/tokenizer.json]
"""
import argparse, json, os, shutil, sys
import torch
from safetensors.torch import save_file
from transformers import EsmConfig, EsmModel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dnabert"))
from pytorch_dnabert import MosaicBert  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("--out", required=True)
p.add_argument("--tokenizer", default="test-data/dnabert/tokenizer.json")
args = p.parse_args()
torch.manual_seed(11)
os.makedirs(args.out, exist_ok=True)

# ESM-2 3B, transformers names without the `esm.` prefix (EsmModel), plus the model-level rotary inv_freq
# (a non-persistent buffer in transformers ≥ 5, so not in state_dict()).
esm_dir = os.path.join(args.out, "esm2-3B")
os.makedirs(esm_dir, exist_ok=True)
config = EsmConfig(vocab_size=33, hidden_size=2560, num_hidden_layers=36, num_attention_heads=40, intermediate_size=10240,
                   position_embedding_type="rotary", token_dropout=True, pad_token_id=1, mask_token_id=32, max_position_embeddings=1026,
                   layer_norm_eps=1e-5, emb_layer_norm_before=False, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
config.architectures = ["EsmModel"]
with torch.device("cuda"):
    esm = EsmModel(config, add_pooling_layer=False).half()
state = {k: v.detach().contiguous() for k, v in esm.state_dict().items()}
head = 2560 // 40
state["rotary_embeddings.inv_freq"] = (1.0 / (10000 ** (torch.arange(0, head, 2, dtype=torch.float32) / head))).half().float().cuda()
save_file(state, os.path.join(esm_dir, "model.safetensors"), metadata={"format": "pt"})
config.to_json_file(os.path.join(esm_dir, "config.json"))
del esm, state

# DNABERT-S (random), the checkpoint's names and config, the real tokenizer.
dn_dir = os.path.join(args.out, "dnabert-s")
os.makedirs(dn_dir, exist_ok=True)
dn = MosaicBert(4096, 768, 12, 12, 3072)
save_file(dn.checkpoint_state(), os.path.join(dn_dir, "model.safetensors"), metadata={"format": "pt"})
json.dump({"architectures": ["BertModel"], "model_type": "bert", "vocab_size": 4096, "hidden_size": 768, "num_hidden_layers": 12,
           "num_attention_heads": 12, "intermediate_size": 3072, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
           "attention_probs_dropout_prob": 0.0, "max_position_embeddings": 512, "type_vocab_size": 2, "layer_norm_eps": 1e-12,
           "pad_token_id": 0, "alibi_starting_size": 512}, open(os.path.join(dn_dir, "config.json"), "w"), indent=2)
shutil.copyfile(args.tokenizer, os.path.join(dn_dir, "tokenizer.json"))

# VirNucPro MLPs (Linear 3328→512, BatchNorm1d(512) with running statistics, Linear 512→2).
for length in (300, 500):
    hidden = torch.nn.Linear(3328, 512)
    out = torch.nn.Linear(512, 2)
    torch.nn.init.xavier_uniform_(hidden.weight)
    torch.nn.init.xavier_uniform_(out.weight)
    mlp = {"hidden_layer.weight": hidden.weight, "hidden_layer.bias": hidden.bias,
           "bn1.weight": 1 + 0.1 * torch.randn(512), "bn1.bias": 0.05 * torch.randn(512),
           "bn1.running_mean": 0.1 * torch.randn(512), "bn1.running_var": 0.5 + torch.rand(512),
           "output_layer.weight": out.weight, "output_layer.bias": out.bias}
    save_file({k: v.detach().float().contiguous() for k, v in mlp.items()}, os.path.join(args.out, f"mlp-{length}.safetensors"), metadata={"format": "pt"})

json.dump({"esm": "esm2-3B", "dnabert": "dnabert-s", "mlp": {"300": "mlp-300.safetensors", "500": "mlp-500.safetensors"},
           "note": "RANDOM full-size weights (tools/bench/predict/make_models.py): for throughput only; the calls mean nothing."},
          open(os.path.join(args.out, "models.json"), "w"), indent=2)
print(json.dumps({"out": args.out, "files": sorted(os.listdir(args.out))}))
