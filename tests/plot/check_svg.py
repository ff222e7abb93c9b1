#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_svg.py BINARY: `migplan simulate --plot` writes SVG that parses as
XML (xml.etree, the standard library's parser), is self-contained, has one
series per policy whose highest value is the replay's peak (GPUs: the JSON's
peak_gpus_in_use; slices: a sweep over the trace done here), rejection marks
that count the JSON's pods_rejected, escapes a file name full of markup,
stays small for a trace of 100,000 pods, and on a fleet of two models adds a
line per model whose highest is that model's peak."""

import json
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
BINARY = sys.argv[1]
failures = []

# (name, start, end, count, item); "e" has no end: it runs to the trace's last time.
ROWS = [("a", 0, 100, 6, "1g.10gb"), ("b", 10, 60, 3, "2g.20gb"), ("c", 20, 200, 2, "3g.40gb"),
        ("d", 50, 120, 1, "2xgpu"), ("e", 70, None, 4, "1g.10gb"), ("f", 90, 150, 2, "4g.40gb")]
# Compute slices per pod on an h100-80gb (seven slices a GPU).
SLICES = {"1g.10gb": 1, "2g.20gb": 2, "3g.40gb": 3, "4g.40gb": 4, "2xgpu": 14}


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def csv(rows):
    return "name,start,end,count,item\n" + "".join(
        f"{n},{s},{'' if e is None else e},{c},{i}\n" for n, s, e, c, i in rows)


def peak_slices(rows):
    """The most compute slices in use at once, departures before arrivals at a time."""
    last = max(max(s, e or s) for _, s, e, _, _ in rows)
    steps = []
    for _, s, e, c, i in rows:
        e = last if e is None else e
        steps += [(s, 1, c * SLICES[i]), (e, 0, -c * SLICES[i])]
    now = best = 0
    for _, _, d in sorted(steps):
        now += d
        best = max(best, now)
    return best


def simulate(trace_path, svg_path, *args):
    r = subprocess.run([BINARY, "simulate", "--trace", trace_path, "--gpu", "h100-80gb", "--json",
                        "--plot", svg_path, *args], capture_output=True, text=True)
    check(r.returncode in (0, 1), f"exit {r.returncode}: {r.stderr}")
    check(r.stderr == "", f"nothing on stderr when it is no terminal, got {r.stderr!r}")
    return json.loads(r.stdout)


def series(svg_path):
    """The root, and per policy its points (data units) and rejection counts."""
    root = ET.parse(svg_path).getroot()
    check(root.tag == SVG + "svg", f"root is <svg>, got {root.tag}")
    lines = {}
    group = next(g for g in root.iter(SVG + "g") if g.get("class") == "series")
    x0, y0 = float(group.get("data-x0")), float(group.get("data-y0"))
    sx, sy = float(group.get("data-x-scale")), float(group.get("data-y-scale"))
    for pl in group.iter(SVG + "polyline"):
        if pl.get("class") != "policy":
            continue
        # Back to data units: seconds since the start, slices or GPUs.
        pts = [tuple(float(v) for v in p.split(",")) for p in pl.get("points").split()]
        lines[pl.get("data-policy")] = [(round((x - x0) / sx, 1), round((y0 - y) / sy, 1))
                                        for x, y in pts]
    marks = {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "rejections":
            marks[g.get("data-policy")] = [int(p.get("data-count")) for p in g
                                           if p.get("class") == "reject"]
    # Self-contained: nothing to run, nothing fetched.
    for el in root.iter():
        check(not el.tag.endswith("script") and not el.tag.endswith("image")
              and not el.tag.endswith("foreignObject"), f"no <{el.tag}>")
        for k, v in el.attrib.items():
            check("href" not in k and "url(" not in v, f"no reference outside: {k}={v}")
    return root, lines, marks


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "pods.csv")
    with open(trace, "w") as f:
        f.write(csv(ROWS))
    svg = os.path.join(tmp, "plot.svg")

    # A fleet of one GPU: every policy rejects; GPUs in use.
    j = simulate(trace, svg, "--gpus", "1", "--plot-metric", "gpus",
                 "--policy", "static", "--policy", "spread-first-fit", "--policy", "pack-best-fit")
    _, lines, marks = series(svg)
    names = [p["name"] for p in j["policies"]]
    check(list(lines) == names, f"one series per policy in order: {list(lines)} vs {names}")
    for p in j["policies"]:
        pts = lines.get(p["name"], [(0, 0)])
        check(max(y for _, y in pts) == p["peak_gpus_in_use"],
              f"{p['name']}: highest GPUs {max(y for _, y in pts)} is the peak {p['peak_gpus_in_use']}")
        check(p["pods_rejected"] > 0, f"{p['name']} rejects on one GPU")
        check(sum(marks.get(p["name"], [])) == p["pods_rejected"],
              f"{p['name']}: marks count {sum(marks.get(p['name'], []))} rejections,"
              f" the replay {p['pods_rejected']}")
        check(max(x for x, _ in pts) == j["trace"]["end"] - j["trace"]["start"],
              f"{p['name']}: the series runs to the trace's end")
    # Each policy's mean GPUs in use, dotted at its height, is the JSON's.
    root, _, _ = series(svg)
    group = next(g for g in root.iter(SVG + "g") if g.get("class") == "series")
    y0, sy = float(group.get("data-y0")), float(group.get("data-y-scale"))
    means = {ln.get("data-policy"): ln for g in root.iter(SVG + "g") if g.get("class") == "means"
             for ln in g if ln.get("class") == "mean"}
    check(list(means) == names, f"one mean per policy in order: {list(means)} vs {names}")
    for p in j["policies"]:
        ln = means.get(p["name"])
        if ln is None:
            continue
        check(float(ln.get("data-mean")) == p["mean_gpus_in_use"],
              f"{p['name']}: mean {ln.get('data-mean')} is the JSON's {p['mean_gpus_in_use']}")
        drawn = (y0 - float(ln.get("y1"))) / sy
        check(abs(drawn - p["mean_gpus_in_use"]) < 0.01,
              f"{p['name']}: mean drawn at {drawn}, the JSON's {p['mean_gpus_in_use']}")

    # Under a queue nothing that fits a GPU is turned away: the marks count
    # the pods refused on arrival (the two-GPU pod on one GPU) and the legend
    # says so, with the pods still pending at the end.
    j = simulate(trace, svg, "--gpus", "1", "--queue", "--policy", "static",
                 "--policy", "pack-best-fit")
    root, _, marks = series(svg)
    texts = [t.text for t in root.iter(SVG + "text") if t.get("class") == "tally"]
    desc = root.find(SVG + "desc").text
    check("refused" in desc and "rejected" not in desc, f"queued: the desc says refused: {desc!r}")
    for p, text in zip(j["policies"], texts):
        refused, pending = p["pods_rejected"], p["queue"]["pods_pending"]
        # static also refuses what its one geometry has no instance for.
        check(refused >= 1, f"{p['name']}: the two-GPU pod is refused, got {refused}")
        check(pending > 0, f"{p['name']}: pods wait on one GPU")
        check(sum(marks.get(p["name"], [])) == refused, f"{p['name']}: marks count the refusals")
        check(text == f"{refused} refused, {pending} pending",
              f"{p['name']}: the legend gives refusals and pending pods: {text!r}")
    check(len(texts) == len(j["policies"]), f"one tally per policy: {texts}")

    # The static plan's fleet: nothing rejected where the sweep says; slices.
    j = simulate(trace, svg, "--policy", "static", "--policy", "pack-best-fit")
    _, lines, marks = series(svg)
    want = peak_slices(ROWS)
    for p in j["policies"]:
        if p["pods_rejected"] == 0:
            got = max(y for _, y in lines[p["name"]])
            check(got == want, f"{p['name']}: highest slices {got}, the trace's peak {want}")
            check(marks.get(p["name"]) == [], f"{p['name']}: no rejection marks")

    # A file name full of markup comes back whole from the parsed title.
    odd = os.path.join(tmp, "a&b <c> \"d\" 'e'.csv")
    with open(odd, "w") as f:
        f.write(csv(ROWS))
    simulate(odd, svg, "--policy", "static")
    root, _, _ = series(svg)
    title = root.find(SVG + "title").text
    check(odd in title, f"the title holds the file name as given: {title!r}")

    # Bytes no XML document may hold (a control character, invalid UTF-8)
    # become U+FFFD: the document still parses.
    raw = os.path.join(os.fsencode(tmp), b"bad\x01\xff.csv")
    with open(raw, "w") as f:
        f.write(csv(ROWS))
    simulate(os.fsdecode(raw), svg, "--policy", "static")
    root, lines, _ = series(svg)
    title = root.find(SVG + "title").text
    check("bad\ufffd\ufffd.csv" in title, f"control and invalid bytes replaced: {title!r}")
    check(list(lines) == ["static"], "one series for one policy")

    # 100,000 pods over 11 days: a bounded file, at most a few thousand points a series.
    big = os.path.join(tmp, "big.csv")
    rows = []
    for k in range(2000):
        start = k * 480
        rows.append((f"p{k}", start, start + 3600 + (k * 7919) % 20000, 50,
                     ["1g.10gb", "2g.20gb", "3g.40gb"][k % 3]))
    with open(big, "w") as f:
        f.write(csv(rows))
    j = simulate(big, svg, "--gpus", "64", "--policy", "static", "--policy", "pack-best-fit")
    check(j["trace"]["pods"] == 100000, f"100,000 pods, got {j['trace']['pods']}")
    _, lines, marks = series(svg)
    size = os.path.getsize(svg)
    check(size < 200_000, f"the plot of 100,000 pods is small: {size} bytes")
    for p in j["policies"]:
        n = len(lines[p["name"]])
        check(n <= 4000, f"{p['name']}: {n} points, at most 4000")
        check(sum(marks[p["name"]]) == p["pods_rejected"],
              f"{p['name']}: marks count every rejection")
        check(max(y for _, y in lines[p["name"]]) <= 64 * 7, f"{p['name']}: within capacity")

    # A fleet of two models: besides each policy's line, one per model, in
    # the fleet's model order, whose highest is that model's peak in the
    # JSON's per-model block (GPUs), or a sweep over the rows only that
    # model serves (slices: 1g.10gb and 3g.40gb are H100 profiles only,
    # 1g.6gb and 2g.12gb A30 ones only); a fleet of one model has none.
    check(not any(pl.get("class") == "model" for pl in root.iter(SVG + "polyline")),
          "one model: no line per model")
    fleet = os.path.join(tmp, "fleet.yaml")
    with open(fleet, "w") as f:
        f.write("version: 1\nnodes:\n  - {name: h, gpu: h100-80gb, gpus: 4}\n"
                "  - {name: a, gpu: a30, gpus: 4}\n")
    mixed = [("h1", 0, 100, 5, "1g.10gb"), ("h2", 30, 80, 2, "3g.40gb"), ("a1", 10, 90, 3, "1g.6gb"),
             ("a2", 40, 60, 2, "2g.12gb"), ("h3", 50, 70, 3, "1g.10gb"), ("a3", 95, 120, 4, "1g.6gb")]
    with open(trace, "w") as f:
        f.write(csv(mixed))
    per_model = {"h100-80gb": ["h1", "h2", "h3"], "a30": ["a1", "a2", "a3"]}
    SLICES.update({"1g.6gb": 1, "2g.12gb": 2})

    def model_lines(svg_path):
        root = ET.parse(svg_path).getroot()
        group = next(g for g in root.iter(SVG + "g") if g.get("class") == "series")
        y0, sy = float(group.get("data-y0")), float(group.get("data-y-scale"))
        out = {}
        for pl in group.iter(SVG + "polyline"):
            if pl.get("class") == "model":
                ys = [round((y0 - float(p.split(",")[1])) / sy, 1) for p in pl.get("points").split()]
                out.setdefault(pl.get("data-policy"), []).append((pl.get("data-model"), max(ys)))
        legend = [t.get("data-model") for t in root.iter(SVG + "text") if t.get("data-model")]
        return out, legend

    for metric in ("gpus", "slices"):
        r = subprocess.run([BINARY, "simulate", "--trace", trace, "--fleet", fleet, "--json",
                            "--plot", svg, "--plot-metric", metric, "--policy", "spread-first-fit",
                            "--policy", "pack-best-fit"], capture_output=True, text=True)
        check(r.returncode == 0, f"mixed fleet: exit {r.returncode}: {r.stderr}")
        j = json.loads(r.stdout)
        models, legend = model_lines(svg)
        check(legend == ["h100-80gb", "a30"], f"mixed fleet: the legend names the models: {legend}")
        for p in j["policies"]:
            check(p["pods_rejected"] == 0, f"{p['name']}: the mixed fleet holds every pod")
            got = models.get(p["name"], [])
            check([m for m, _ in got] == ["h100-80gb", "a30"],
                  f"{p['name']}: one line per model in the fleet's order: {got}")
            for (name, high), jm in zip(got, p["models"]):
                want = (jm["peak_gpus_in_use"] if metric == "gpus"
                        else peak_slices([row for row in mixed if row[0] in per_model[name]]))
                check(high == want, f"{p['name']} on {name}: highest {metric} {high}, want {want}")

print("ok" if not failures else f"{len(failures)} failures")
sys.exit(1 if failures else 0)
