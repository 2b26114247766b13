#!/usr/bin/env bash
# report.html at 10K, 100K and 1M frames: file size, `virnucpro report` time, and in headless Chromium (Debian's
# package) the page's own clock: first contentful paint (when the browser reports it before the DOM is dumped)
# and the end of the page's script (counts, histogram, table and the first track drawn), best of 3 opens; plus
# Chromium's whole run (process start to exit) and the same for an empty page, to see the browser's own cost.
#   bash tools/bench/report/run.sh [WORK_DIR]      (from the repo root, after npm run build)
set -euo pipefail
W=${1:-/tmp/vnp-report-bench}
mkdir -p "$W"
printf '<!DOCTYPE html><title>empty</title><p>empty</p>\n' > "$W/empty.html"
open_page() { chromium --headless --no-sandbox --disable-gpu --dump-dom "file://$1" 2>/dev/null; }
wall() { local t0 t1; t0=$(date +%s%N); open_page "$1" > /dev/null; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
echo -e "frames\trecords\tchunks\treport.html bytes\tvirnucpro report s\tFCP ms\tscript done ms\tchromium wall ms\tempty page wall ms"
for frames in 10000 100000 1000000; do
  dir="$W/run-$frames"
  [ -s "$dir/run_summary.json" ] || node tools/bench/report/synthetic-run.mjs "$dir" "$frames" > /dev/null
  t0=$(date +%s%N); node packages/cli/bin/virnucpro.js report "$dir" --quiet; t1=$(date +%s%N)
  best_done=999999; best_fcp=999999; best_wall=999999; best_empty=999999
  for i in 1 2 3; do
    dom=$(open_page "$dir/report.html")
    done_ms=$(grep -o 'data-rendered-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo 999999)
    fcp_ms=$(grep -o 'data-fcp-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' || echo 999999)
    w=$(wall "$dir/report.html"); e=$(wall "$W/empty.html")
    (( done_ms < best_done )) && best_done=$done_ms; (( fcp_ms < best_fcp )) && best_fcp=$fcp_ms
    (( w < best_wall )) && best_wall=$w; (( e < best_empty )) && best_empty=$e
  done
  [ "$best_fcp" = 999999 ] && best_fcp='–'
  echo -e "$frames\t$(jq .sequences "$dir/run_summary.json")\t$(jq .chunks "$dir/run_summary.json")\t$(stat -c %s "$dir/report.html")\t$(echo "scale=2; ($t1 - $t0) / 1000000000" | bc)\t$best_fcp\t$best_done\t$best_wall\t$best_empty"
done
