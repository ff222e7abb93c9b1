#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_plan_svg.py BINARY SOURCE_DIR [--browser]: `migplan plan --plot`
writes SVG that parses as XML, is self-contained, and draws what `plan
--json` answers for the same input: a legend entry per geometry (its GPU
count and instances), GPU cells whose counts per geometry are the plan's
(per node where nodes are known), a row per fold of alike nodes, as many
as the text report's node lines, and in a re-plan the GPUs that change
(per GPU index and geometry after) and the kinds of change (before ->
after). A 5,000-GPU fleet stays a handful of rows in a small file (its
size and time are printed). With --browser, the re-plan's picture is
rendered by Debian's chromium and must not be blank; without chromium the
test is skipped (exit 77). doc/plan-plot.svg must be the re-plan's picture
as the binary draws it."""

import collections
import json
import os
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

from svg_checks import SVG, Checks, chromium, outside_references, png_is_blank, screenshot

CHECKS = Checks(sys.argv[1])
check = CHECKS.check
migplan = CHECKS.migplan
SOURCE = sys.argv[2]
FLEET_NOW = os.path.join(SOURCE, "tests", "fixtures", "plan", "fleet-now.yaml")
REPLAN = ["--current", FLEET_NOW, "60x1g.10gb", "4x3g.40gb"]


def cells_of(root):
    return [x for x in root.iter(SVG + "rect") if x.get("class") == "gpu"]


def compare(what, args, path):
    """The picture of `plan ARGS` against its --json; the parsed root."""
    answer = json.loads(migplan("plan", "--json", *args).stdout)
    r = migplan("plan", "--plot", path, *args)
    text = r.stdout
    check(r.returncode in (0, 1), f"{what}: exit {r.returncode} {r.stderr}")
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", f"{what}: root {root.tag}")
    for problem in outside_references(root):
        check(False, f"{what}: {problem}")
    groups = answer["groups"]
    # The legend: a geometry each, with its count and its instances.
    legend = [g for g in root.iter(SVG + "g") if g.get("class") == "legend"]
    check(len(legend) == len(groups), f"{what}: {len(legend)} legend entries")
    for k, (entry, group) in enumerate(zip(legend, groups)):
        check(entry.get("data-group") == str(k) and int(entry.get("data-gpus")) == group["count"],
              f"{what}: legend {k}")
        got = sorted((x.get("data-profile"), int(x.get("data-start")))
                     for x in entry.iter(SVG + "rect") if x.get("class") == "instance")
        want = sorted((i["profile"], i["start"]) for i in group["instances"])
        check(got == want, f"{what}: legend {k} instances {got} != {want}")
    # The cells: GPUs per geometry, per node where nodes are known.
    drawn = collections.Counter()
    for c in cells_of(root):
        drawn[int(c.get("data-group"))] += int(c.get("data-gpus"))
    rows = [g for g in root.iter(SVG + "g") if g.get("class") == "row"]
    if "nodes" in answer:
        want = collections.Counter(-1 if g["group"] is None else g["group"]
                                   for n in answer["nodes"] for g in n["gpus"])
        # Alike nodes fold as the text report folds them: a row each of its node lines.
        patterns = {tuple(sorted((g["index"], g["group"] is None, g["group"] or 0)
                                 for g in n["gpus"])) for n in answer["nodes"]}
        check(len(rows) == len(patterns), f"{what}: {len(rows)} rows, {len(patterns)} patterns")
        check(sum(int(r.get("data-nodes")) for r in rows) == len(answer["nodes"]),
              f"{what}: nodes in rows")
        lines = text.split("\nnodes:\n")[1].split("\n\n")[0].splitlines() if text else []
        if len(rows) <= 20:
            check(len(lines) == len(rows), f"{what}: {len(lines)} node lines, {len(rows)} rows")
    else:
        want = collections.Counter({k: g["count"] for k, g in enumerate(groups)})
        check(len(rows) == len(groups), f"{what}: a row per geometry")
    check(drawn == want, f"{what}: gpus per geometry {dict(drawn)} != {dict(want)}")
    # A re-plan's changes: on the cells, and as kinds before -> after.
    changes = answer.get("changes", [])

    def group(g):
        return -1 if g is None else g

    marked = collections.Counter()
    for c in cells_of(root):
        if c.get("data-changed"):
            marked[(int(c.get("data-index")), int(c.get("data-group")))] += int(c.get("data-changed"))
    check(marked == collections.Counter((c["index"], group(c["to_group"])) for c in changes),
          f"{what}: changed cells {dict(marked)}")
    kinds = collections.Counter()
    for g in root.iter(SVG + "g"):
        if g.get("class") == "change":
            kinds[(int(g.get("data-from")), int(g.get("data-to")))] += int(g.get("data-gpus"))
    check(kinds == collections.Counter((group(c["from_group"]), group(c["to_group"]))
                                       for c in changes),
          f"{what}: kinds of change {dict(kinds)}")
    return answer, root


def big_fleet(tmp, nodes):
    """A fleet file of `nodes` nodes of eight H100s."""
    path = os.path.join(tmp, "big-fleet.yaml")
    with open(path, "w") as f:
        f.write("version: 1\nnodes:\n")
        for n in range(nodes):
            f.write(f"  - {{name: gpu-{n:04d}, gpu: h100-80gb, gpus: 8}}\n")
    return path


def big_state(tmp, nodes):
    """A state file of `nodes` nodes of eight H100s, each with seven 1g.10gb."""
    path = os.path.join(tmp, "big-state.yaml")
    seven = ", ".join(f"{{profile: 1g.10gb, start: {s}}}" for s in range(7))
    with open(path, "w") as f:
        f.write("version: 1\nnodes:\n")
        for n in range(nodes):
            f.write(f"  - name: gpu-{n:04d}\n    gpu: h100-80gb\n    gpus:\n")
            for i in range(8):
                f.write(f"      - {{index: {i}, instances: [{seven}]}}\n")
    return path


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plan.svg")
        if "--browser" in sys.argv[3:]:
            browser_path = chromium()
            if not browser_path:
                print("skipped: chromium is not installed (apt-get install chromium)")
                sys.exit(77)
            r = migplan("plan", "--plot", path, *REPLAN)
            check(r.returncode == 0, "the browser's picture was written")
            png = screenshot(browser_path, path, "900,900")
            check(png is not None, "chromium wrote a screenshot")
            if png:
                check(not png_is_blank(png), "the screenshot is not blank")
        else:
            compare("gpus", ["--gpu", "h100-80gb", "300x1g.10gb", "80x3g.40gb", "25x7g.80gb"],
                    path)
            compare("fleet", ["--fleet", os.path.join(SOURCE, "tests", "fixtures", "plan",
                                                      "fleet.yaml"),
                              "40x1g.10gb", "6x3g.40gb", "2x7g.80gb"], path)
            answer, _ = compare("re-plan", REPLAN, path)
            check(len(answer["changes"]) > 0, "the re-plan changes gpus")
            # doc/tour.md's picture is this re-plan's, as the binary draws it now
            # (regenerate: the command in doc/plan.md, "--plot").
            with open(os.path.join(SOURCE, "doc", "plan-plot.svg"), "rb") as f:
                check(f.read() == open(path, "rb").read(),
                      "doc/plan-plot.svg is not what plan --plot draws; regenerate it")
            compare("unchanged", ["--current", FLEET_NOW, "20x1g.10gb"], path)
            # 5,000 GPUs: alike nodes fold, so a handful of rows in a small file.
            fleet = big_fleet(tmp, 625)
            args = ["--fleet", fleet, "20000x1g.10gb", "3000x3g.40gb", "500x7g.80gb"]
            start = time.monotonic()
            r = migplan("plan", "--plot", path, *args)
            seconds = time.monotonic() - start
            _, root = compare("5000 gpus", args, path)
            rows = [g for g in root.iter(SVG + "g") if g.get("class") == "row"]
            size = os.path.getsize(path)
            print(f"5000 gpus: {len(rows)} rows, {size} bytes, plan --plot in {seconds:.2f} s")
            check(len(rows) <= 10, f"5000 gpus: {len(rows)} rows")
            check(size < 64 * 1024, f"5000 gpus: {size} bytes")
            # A 5,000-GPU re-plan: 500 GPUs change, still a few rows.
            now = big_state(tmp, 625)
            args = ["--current", now, "30000x1g.10gb", "1000x3g.40gb"]
            start = time.monotonic()
            migplan("plan", "--plot", path, *args)
            seconds = time.monotonic() - start
            answer, root = compare("5000 gpus re-plan", args, path)
            rows = [g for g in root.iter(SVG + "g") if g.get("class") == "row"]
            size = os.path.getsize(path)
            print(f"5000 gpus re-plan: {len(answer['changes'])} changes, {len(rows)} rows, "
                  f"{size} bytes, plan --plot in {seconds:.2f} s")
            check(len(rows) <= 10 and size < 64 * 1024, f"5000 gpus re-plan: {size} bytes")
            # Names are escaped: the picture parses whatever the nodes are called.
            odd = os.path.join(tmp, "odd.yaml")
            with open(odd, "w") as f:
                f.write('version: 1\nnodes:\n  - {name: "a<b>&\\"c\'", gpu: h100-80gb, gpus: 2}\n')
            r = migplan("plan", "--fleet", odd, "--plot", path, "2x7g.80gb")
            if r.returncode == 0:
                root = ET.parse(path).getroot()
                texts = "".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
                check("a<b>&\"c'" in texts, "odd node name shown as it is")
            else:
                check("name" in r.stderr, f"odd name refused: {r.stderr}")
            # What --plot refuses: a file that cannot be written (before the solve), stdout.
            for bad in ("/no/such/dir/p.svg", "-"):
                r = migplan("plan", "--gpu", "h100-80gb", "--plot", bad, "1g.10gb")
                check(r.returncode == 2 and "--plot" in r.stderr and not r.stdout,
                      f"--plot {bad}: exit {r.returncode} {r.stderr}")
    CHECKS.finish()


main()
