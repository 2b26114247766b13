"""PyTorch's own GEMM rate on the shapes of tools/bench/gemm/cublaslt_algos.cu: F.linear (x·Wᵀ + b, weight
[cols, inner] as nn.Linear keeps it, cuBLASLt with its bias epilogue underneath), one JSON line per shape and rows.
Run beside cublaslt_algos in the same device call: python3 tools/bench/gemm/torch_linear.py [bf16|f16]"""
import json
import sys

import torch
import torch.nn.functional as F

SHAPES = [("esm2-3B.qkv", 2560, 7680), ("esm2-3B.out", 2560, 2560), ("esm2-3B.fc1", 2560, 10240), ("esm2-3B.fc2", 10240, 2560),
          ("dnabert-s.qkv", 768, 2304), ("dnabert-s.out", 768, 768), ("dnabert-s.gated", 768, 6144), ("dnabert-s.wo", 3072, 768)]
dtype = torch.float16 if len(sys.argv) > 1 and sys.argv[1] == "f16" else torch.bfloat16
for name, inner, cols in SHAPES:
    w = torch.randn(cols, inner, device="cuda", dtype=dtype) * 0.02
    b = torch.randn(cols, device="cuda", dtype=dtype) * 0.02
    for rows in (16384, 32768):
        x = torch.randn(rows, inner, device="cuda", dtype=dtype)
        for _ in range(3):
            F.linear(x, w, b)
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        reps = 12
        start.record()
        for _ in range(reps):
            F.linear(x, w, b)
        stop.record()
        torch.cuda.synchronize()
        tflops = 2 * rows * inner * cols * reps / (start.elapsed_time(stop) * 1e-3) / 1e12
        print(json.dumps({"shape": name, "rows": rows, "storage": str(dtype), "torchLinearTflops": round(tflops, 1)}), flush=True)
