#!/usr/bin/env bash
# report.html of `latchwork repro` opened in headless Chromium: three small
# figures (lines, bars of one x, CDF-free breakdown) render, every plot image
# loads (the page's own marker, data-rendered="ok"), the summary table and one
# section per figure are in the DOM, and a screenshot is not blank.
# Exit 77 (ctest SKIP) only when chromium is not installed.
# usage: repro_report_test.sh <path to latchwork>
set -uo pipefail
lw=$1
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

chromium=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chromium" ]; then
  echo "SKIP: chromium is not installed (Debian package chromium; scripts/bootstrap.sh installs it)"
  exit 77
fi
. "$(dirname "$0")/expect.sh"

figs=jasny-fig4,sherman-fig16
expect_exit 0 "repro with plots" -- "$lw" repro "$figs" --jobs 2 --quiet --out "$tmp/out-dir"
[ -s "$tmp/out-dir/report.html" ] || { echo "FAIL: repro wrote no report.html"; cat "$tmp/out" "$tmp/err"; exit 1; }
grep -q "wrote $tmp/out-dir/report.html" "$tmp/out" || { echo "FAIL: repro does not say it wrote report.html"; fail=1; }
grep -q '"chart": "bars"' "$tmp/out-dir/sherman-fig16.json" || { echo "FAIL: sherman-fig16 is not declared bars"; fail=1; }

browse() {  # browse OUTPUT-FLAG...: headless Chromium on the report, no network
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$tmp/profile" --window-size=1400,1000 "$@" "file://$tmp/out-dir/report.html"
}
browse --dump-dom >"$tmp/dom.html" 2>"$tmp/chromium.err" || { echo "FAIL: chromium --dump-dom failed"; cat "$tmp/chromium.err"; fail=1; }
grep -q 'data-rendered="ok"' "$tmp/dom.html" || {
  echo "FAIL: the page did not mark itself rendered (an image failed to load?):"
  grep -o '<body[^>]*>' "$tmp/dom.html"; fail=1; }
grep -q 'data-images-failed="0"' "$tmp/dom.html" || { echo "FAIL: images failed to load"; fail=1; }
grep -q '<title>rendered: 2 figures</title>' "$tmp/dom.html" || { echo "FAIL: the title does not count 2 figures"; fail=1; }
grep -q 'id="summary"' "$tmp/dom.html" || { echo "FAIL: no summary table"; fail=1; }
for f in ${figs//,/ }; do
  grep -q "<section class=\"figure\" id=\"$f\">" "$tmp/dom.html" || { echo "FAIL: no section for $f"; fail=1; }
  grep -q "<img src=\"$f.png\"" "$tmp/dom.html" || { echo "FAIL: no plot of $f"; fail=1; }
done
# The summary counts what the JSON files state.
/usr/bin/python3 - "$tmp/out-dir" "$tmp/dom.html" <<'PY' || fail=1
import json, re, sys
d, dom = sys.argv[1], open(sys.argv[2]).read()
vals = [v for f in ("jasny-fig4", "sherman-fig16") for v in json.load(open(f"{d}/{f}.json"))["paper"]]
pred = [v for v in vals if not v["fitted"]]
within = sum(v["within_tolerance"] for v in pred)
want = f"<b>{within} of {len(pred)}</b> predicted values"
if want not in dom:
    sys.exit(f"FAIL: the headline lacks '{want}'")
row = re.search(r'<tr class="total"><td>all</td><td>2</td><td>(\d+)</td>', dom)
if not row or int(row.group(1)) != len(vals):
    sys.exit(f"FAIL: the summary's total row does not state {len(vals)} values")
PY
browse --screenshot="$tmp/shot.png" >/dev/null 2>"$tmp/chromium.err" || { echo "FAIL: chromium --screenshot failed"; cat "$tmp/chromium.err"; fail=1; }
/usr/bin/python3 - "$tmp/shot.png" <<'PY' || fail=1
import sys
import matplotlib.image as mpimg
img = mpimg.imread(sys.argv[1])
h, w = img.shape[:2]
colours = {tuple(px) for px in img[::8, ::8, :3].reshape(-1, 3).round(2).tolist()}
if (w, h) != (1400, 1000) or len(colours) < 8:
    sys.exit(f"FAIL: screenshot {w}x{h} with {len(colours)} colours looks blank")
PY
exit $fail
