#!/usr/bin/env python3
"""Writes report.html for a `latchwork repro --out` folder: the totals by paper
(values stated, fitted, predicted, within tolerance), then one section per
figure with its plot (the PNG beside the page), its set-up, the paper-vs-model
table with each value's verdict, and its notes (which say why values miss).
The page needs no network. Once every image has loaded or failed it sets
<body data-rendered="ok|error"> and data-images-failed, which tests read."""
import html
import json
import os
import re
import sys


def main() -> int:
    if len(sys.argv) < 3:
        print("usage: repro_report.py OUT_DIR FIGURE [FIGURE ...]", file=sys.stderr)
        return 2
    out_dir, names = sys.argv[1], sys.argv[2:]
    figures = []
    for name in names:
        with open(os.path.join(out_dir, name + ".json")) as f:
            figures.append(json.load(f))
    with open(os.path.join(out_dir, "report.html"), "w") as f:
        f.write(page(figures))
    return 0


def paper_of(fig):
    return fig["name"].split("-")[0]


def tally(values):
    t = {"stated": len(values), "fitted": 0, "predicted": 0, "within": 0, "predicted_within": 0}
    for v in values:
        t["fitted" if v["fitted"] else "predicted"] += 1
        t["within"] += v["within_tolerance"]
        t["predicted_within"] += v["within_tolerance"] and not v["fitted"]
    return t


def share(a, b):
    return f"{100 * a / b:.0f}%" if b else "-"


def esc(text):
    return html.escape(str(text))


def summary(figures):
    papers = {}
    for fig in figures:
        papers.setdefault(paper_of(fig), []).append(fig)
    rows = []
    for paper, figs in sorted(papers.items()):
        t = tally([v for f in figs for v in f["paper"]])
        rows.append((paper, len(figs), t))
    total = tally([v for f in figures for v in f["paper"]])
    out = ['<table class="summary" id="summary"><thead><tr><th>paper</th><th>figures</th><th>values stated</th>'
           '<th>fitted</th><th>predicted</th><th>within tolerance</th><th>predicted within</th>'
           '<th>share of predicted within</th></tr></thead><tbody>']
    for paper, n, t in rows + [("all", len(figures), total)]:
        cls = ' class="total"' if paper == "all" else ""
        out.append(f'<tr{cls}><td>{esc(paper)}</td><td>{n}</td><td>{t["stated"]}</td><td>{t["fitted"]}</td>'
                   f'<td>{t["predicted"]}</td><td>{t["within"]}</td><td>{t["predicted_within"]}</td>'
                   f'<td>{share(t["predicted_within"], t["predicted"])}</td></tr>')
    out.append("</tbody></table>")
    headline = (f'<p class="headline"><b>{total["predicted_within"]} of {total["predicted"]}</b> predicted values '
                f'within tolerance ({share(total["predicted_within"], total["predicted"])}); '
                f'{total["within"]} of {total["stated"]} stated values in all '
                f'({total["within"] - total["predicted_within"]} of {total["fitted"]} fitted).</p>')
    return headline + "\n".join(out)


def contents(figures):
    items = []
    for fig in figures:
        t = tally(fig["paper"])
        misses = t["stated"] - t["within"]
        badge = (f'<span class="miss">{misses} miss{"es" if misses != 1 else ""}</span>' if misses
                 else '<span class="ok">all within</span>' if t["stated"] else '<span class="none">no values</span>')
        items.append(f'<li><a href="#{esc(fig["name"])}">{esc(fig["name"])}</a> '
                     f'{t["within"]}/{t["stated"]} {badge}</li>')
    return '<ul class="contents">' + "".join(items) + "</ul>"


def scale_downs(notes):
    """The sentences of the notes that say how the set-up was scaled."""
    found = re.findall(r"(?:^|(?<=\. ))(Scale[^.]*(?:\.\d[^.]*)*\.)", notes or "")
    return " ".join(found)


def value_rows(fig):
    out = []
    for v in fig["paper"]:
        series = v["series"] + (f" / {v['over_series']}" + (" (peak)" if v.get("over_peak") else "") if v.get("over_series") else "")
        bound = "&gt; " if v.get("at_least") else "&lt; " if v.get("at_most") else ""
        ok = v["within_tolerance"]
        verdict = '<td class="ok">within</td>' if ok else '<td class="miss">MISS</td>'
        err = v.get("error")
        err_text = f"{100 * err:+.1f}%" if isinstance(err, (int, float)) else "-"
        model = v.get("model_value")
        model_text = f"{model:.3g}" if isinstance(model, (int, float)) else "-"
        out.append(f'<tr class="{"" if ok else "missrow"}"><td>{esc(series)}</td><td>{v["x"]:g}</td>'
                   f'<td>{bound}{v["paper_value"]:.3g}</td><td>{model_text}</td><td>{err_text}</td>'
                   f'<td>&plusmn;{100 * v["tolerance"]:.0f}%</td>'
                   f'<td>{"fitted" if v["fitted"] else "predicted"}</td>{verdict}<td class="src">{esc(v["source"])}</td></tr>')
    return "".join(out)


def section(fig):
    name = fig["name"]
    t = tally(fig["paper"])
    parts = [f'<section class="figure" id="{esc(name)}"><h2>{esc(fig["title"])}</h2>',
             f'<p class="setup"><b>{esc(name)}</b> &middot; {esc(fig.get("chart", "lines"))} &middot; '
             f'set-up: {esc(fig.get("setup", ""))}</p>']
    scaled = scale_downs(fig.get("notes", ""))
    if scaled:
        parts.append(f'<p class="setup">scale-downs: {esc(scaled)}</p>')
    parts.append(f'<img src="{esc(name)}.png" alt="{esc(name)} plot" class="plot">')
    if fig["paper"]:
        parts.append(f'<p>{t["within"]} of {t["stated"]} stated values within tolerance '
                     f'({t["predicted_within"]} of {t["predicted"]} predicted).</p>')
        parts.append('<table class="values"><thead><tr><th>series</th><th>x</th><th>paper</th><th>model</th>'
                     '<th>error</th><th>tolerance</th><th>kind</th><th>verdict</th><th>source</th></tr></thead>'
                     f'<tbody>{value_rows(fig)}</tbody></table>')
    else:
        parts.append("<p>The paper states no values for this figure; the notes say what shape to check.</p>")
    if fig.get("notes"):
        label = "Notes (the causes of the misses)" if t["within"] < t["stated"] else "Notes"
        parts.append(f'<p class="notes"><b>{label}:</b> {esc(fig["notes"])}</p>')
    parts.append("</section>")
    return "\n".join(parts)


STYLE = """
body { font-family: sans-serif; margin: 1.5em auto; max-width: 1250px; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
h2 { font-size: 1.1em; border-top: 2px solid #ccc; padding-top: .8em; }
table { border-collapse: collapse; font-size: 13px; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 3px 7px; text-align: right; }
th { background: #eef; text-align: center; }
td.src { text-align: left; font-size: 12px; color: #444; }
td:first-child { text-align: left; }
tr.total { font-weight: bold; background: #f4f4f4; }
.ok { color: #17692c; font-weight: bold; }
.miss { color: #b00020; font-weight: bold; }
.none { color: #777; }
tr.missrow { background: #fff0f0; }
.headline { font-size: 1.1em; }
.setup { font-size: 13px; color: #333; margin: .2em 0; }
.notes { font-size: 13px; background: #fafafa; border-left: 3px solid #aaa; padding: .4em .8em; }
img.plot { max-width: 100%; border: 1px solid #ddd; margin: .5em 0; }
ul.contents { columns: 4; font-size: 13px; padding-left: 1.2em; }
"""

# Counts images that loaded or failed; when all have, marks the body.
SCRIPT = """
(function () {
  var imgs = document.querySelectorAll('img.plot'), done = 0, failed = 0;
  function finish() {
    document.body.dataset.imagesFailed = String(failed);
    document.body.dataset.rendered = failed === 0 ? 'ok' : 'error';
    document.title = (failed === 0 ? 'rendered: ' : 'FAILED images: ' + failed + ' of ') + imgs.length + ' figures';
  }
  function one(ok) { if (!ok) failed++; if (++done === imgs.length) finish(); }
  imgs.forEach(function (img) {
    if (img.complete) { one(img.naturalWidth > 0); return; }
    img.addEventListener('load', function () { one(true); });
    img.addEventListener('error', function () { one(false); });
  });
  if (imgs.length === 0) finish();
})();
"""


def page(figures):
    body = "\n".join(section(f) for f in figures)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>latchwork repro report</title>
<style>{STYLE}</style></head>
<body data-rendered="pending" data-figures="{len(figures)}">
<h1>Latchwork: the model against the papers</h1>
<p>{len(figures)} figure{"s" if len(figures) != 1 else ""} of <code>latchwork repro</code>. A value is <i>fitted</i> when a model parameter was chosen
to match it, <i>predicted</i> otherwise; the share of predicted values within tolerance is the model's standing.</p>
{summary(figures)}
{contents(figures)}
{body}
<script>{SCRIPT}</script>
</body></html>
"""


if __name__ == "__main__":
    sys.exit(main())
