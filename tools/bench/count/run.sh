#!/usr/bin/env bash
# predict's counting pass (countFrames + the input check + the fingerprint), two builds alternated on one FASTA:
#   tools/bench/count/run.sh FILE OTHER_CLI_DIST [reps=5]
# e.g. OTHER_CLI_DIST=/path/to/main-checkout/packages/cli/dist (built) against this checkout's packages/cli/dist.
# Input of the 1M-frame benchmark: python3 tools/bench/predict/make_reads.py --frames 1000000 --out FILE \
#   test-data/lambda_virus.fa test-data/ecoli536_1-30000.fa
# Each line: wall seconds (CPU seconds) and the counts; the counts and fingerprints of the two builds must agree.
set -euo pipefail
FILE=$1
OTHER=$2
REPS=${3:-5}
HERE=$(cd "$(dirname "$0")" && pwd)
for i in $(seq 1 "$REPS"); do
  echo "other $(node "$HERE/time-count.mjs" "$FILE" "$OTHER")"
  echo "this  $(node "$HERE/time-count.mjs" "$FILE")"
done
