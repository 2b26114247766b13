"""Joins the outputs of pytorch_predict.py runs over consecutive --records parts into one run's outputs.

  python3 tools/bench/predict/merge_parts.py OUT PART_DIR... (in record order; each holds the two result files and
  the part's printed JSON as result.json)
The result files are concatenated (one header); the JSON sums frames, tokens and seconds (per stage and in total),
so the merged figures are those of one reference run over all records, without the parts' extra interpreter starts.
"""
import json, os, sys

out, parts = sys.argv[1], sys.argv[2:]
os.makedirs(out, exist_ok=True)
for name in ("prediction_results.txt", "prediction_results_highestscore.csv"):
    with open(os.path.join(out, name), "w") as merged:
        for i, part in enumerate(parts):
            with open(os.path.join(part, name)) as f:
                header = f.readline()
                if i == 0:
                    merged.write(header)
                for line in f:
                    merged.write(line)
runs = [json.load(open(os.path.join(part, "result.json"))) for part in parts]
total = {k: sum(r[k] for r in runs) for k in ("frames", "dnabertTokens", "esmTokens", "seconds")}
stages = {s: round(sum(r["stages"][s] for r in runs), 2) for s in runs[0]["stages"]}
merged = {"parts": [{k: r[k] for k in ("date", "records", "frames", "seconds")} for r in runs], "gpu": runs[0]["gpu"], "torch": runs[0]["torch"],
          **total, "seconds": round(total["seconds"], 2), "stages": stages, "framesPerSecond": round(total["frames"] / total["seconds"]),
          "esmTokensPerSecondInStage": round(total["esmTokens"] / stages["ESM-2"]), "peakGpuBytes": max(r["peakGpuBytes"] for r in runs)}
if any(r.get("compiled") for r in runs):
    # Each part compiled the models again (later parts from inductor's cache): every part's compilation is counted
    # in "compile" and left out of secondsWithoutCompile.
    merged["compiled"] = True
    merged["secondsWithoutCompile"] = round(total["seconds"] - stages.get("compile", 0), 2)
json.dump(merged, open(os.path.join(out, "result.json"), "w"), indent=1)
print(json.dumps(merged, indent=1))
