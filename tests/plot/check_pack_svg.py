#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_pack_svg.py BINARY [--browser]: `migplan pack --plot` writes SVG that
parses as XML, is self-contained (no script, no external reference), and
draws what `pack --json` answers: on every catalog model, for requests of its
profiles, the preferred layout's instances (profile, start, size), its free
and stranded units, and its compute slices (used per instance, free,
stranded). With --browser, one picture is rendered by Debian's chromium
(--headless --screenshot) and the PNG must not be blank; without chromium
the test is skipped (exit 77)."""

import json
import os
import sys
import tempfile
import xml.etree.ElementTree as ET

from svg_checks import SVG, Checks, chromium, outside_references, png_is_blank, screenshot

CHECKS = Checks(sys.argv[1])
check = CHECKS.check
migplan = CHECKS.migplan


def self_contained(root, what):
    for problem in outside_references(root):
        check(False, f"{what}: {problem}")


def compare(model, items, path):
    what = f"{model} {' '.join(items)}"
    answer = json.loads(migplan("pack", "--gpu", model, "--json", *items).stdout)
    r = migplan("pack", "--gpu", model, "--plot", path, *items)
    check(r.returncode == (0 if answer["feasible"] else 1), f"{what}: exit {r.returncode}")
    root = ET.parse(path).getroot()
    check(root.tag == SVG + "svg", f"{what}: root {root.tag}")
    self_contained(root, what)
    panels = [g for g in root.iter(SVG + "g") if g.get("class") == "answer"]
    check(len(panels) == 1 and panels[0].get("data-gpu") == model, f"{what}: one panel")
    rects = list(root.iter(SVG + "rect"))
    texts = "".join("".join(t.itertext()) for t in root.iter(SVG + "text"))
    if not answer["feasible"]:
        check("does not fit" in texts, f"{what}: says it does not fit")
        check(not [x for x in rects if x.get("class") == "instance"], f"{what}: no instances")
        return
    best = answer["layouts"][0]
    want = sorted((i["profile"], i["start"], i["size"]) for i in best["instances"])
    got = sorted((x.get("data-profile"), int(x.get("data-start")), int(x.get("data-size")))
                 for x in rects if x.get("class") == "instance")
    check(got == want, f"{what}: instances {got} != {want}")
    stranded = {int(x.get("data-unit")) for x in rects if x.get("class") == "stranded"
                and x.get("data-unit") is not None}
    free = {int(x.get("data-unit")) for x in rects if x.get("class") == "free"
            and x.get("data-unit") is not None}
    check(free | stranded == set(best["free_units"]) and not free & stranded,
          f"{what}: free {free} + stranded {stranded} != {best['free_units']}")
    check(len(stranded) == best["stranded"]["units"], f"{what}: stranded units")
    slices = [x for x in rects if x.get("data-slice") is not None]
    used = [x for x in slices if x.get("class") == "used"]
    gone = [x for x in slices if x.get("class") == "stranded"]
    total = len(slices)
    check(total - len(used) == best["free_compute_slices"], f"{what}: free slices")
    check(len(gone) == best["stranded"]["compute_slices"], f"{what}: stranded slices")
    letters = {x.get("data-instance") for x in rects if x.get("class") == "instance"}
    check({x.get("data-instance") for x in used} <= letters, f"{what}: slices of no instance")


def browser(path):
    browser_path = chromium()
    if not browser_path:
        print("skipped: chromium is not installed (apt-get install chromium)")
        sys.exit(77)
    r = migplan("pack", "--gpu", "a100-40gb", "--plot", path, "4g.20gb", "2g.10gb", "1g.5gb")
    check(r.returncode == 0, "the browser's picture was written")
    png = screenshot(browser_path, path, "800,300")
    check(png is not None, "chromium wrote a screenshot")
    if png:
        check(not png_is_blank(png), "the screenshot is not blank")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pack.svg")
        if "--browser" in sys.argv[2:]:
            browser(path)
        else:
            gpus = json.loads(migplan("profiles", "--json").stdout)["gpus"]
            cases = 0
            for g in gpus:
                names = [p["name"] for p in g["profiles"]]
                # Each profile alone, pairs of neighbours, and all of them (no fit, mostly).
                requests = [[n] for n in names] + [names[i:i + 2] for i in range(len(names) - 1)]
                requests.append(names)
                for items in requests:
                    compare(g["id"], items, path)
                    cases += 1
            check(cases > 100, f"only {cases} cases")
            # What --plot does not combine with: bad input, nothing written.
            for args in (["--batch", "-", "--plot", path], ["--json", "--plot", "-", "1g.5gb"]):
                r = migplan("pack", "--gpu", "a100-40gb", *args)
                check(r.returncode == 2 and "--plot" in r.stderr and "<svg" not in r.stdout,
                      f"{args}: exit {r.returncode} {r.stderr}")
            r = migplan("pack", "--gpu", "a100-40gb", "--plot", "/no/such/dir/p.svg", "1g.5gb")
            check(r.returncode == 2 and "cannot write --plot" in r.stderr and not r.stdout,
                  f"unwritable --plot: exit {r.returncode} {r.stderr}")
            # A request that does not fit says why, as --json's reason does: also when
            # its compute instances cannot be had in their GPU instance (once "it fits").
            for model, items in (("a100-40gb", ["3g.20gb[2c,2c]"]),
                                 ("a100-40gb", ["3g.20gb[4c]", "1g.5gb"]),
                                 ("h100-80gb", ["3g.40gb[2c,1c]", "1g.10gb"]),
                                 ("a100-40gb", ["7g.40gb", "1g.5gb"]),
                                 ("a100-40gb", ["8x1g.5gb"])):
                answer = json.loads(migplan("pack", "--gpu", model, "--json", *items).stdout)
                r = migplan("pack", "--gpu", model, "--plot", "-", *items)
                verdicts = ["".join(t.itertext()) for t in ET.fromstring(r.stdout).iter(SVG + "text")
                            if t.get("class") == "verdict"]
                want = "does not fit: " + answer["reason"]["message"]
                check(r.returncode == 1 and verdicts == [want],
                      f"{model} {items}: verdict {verdicts}, want [{want!r}]")
            # A listing of several GPUs: a panel per GPU, each naming its GPU as the
            # report's "GPU N" heading and --json's gpu_index do (GPUs 0 and 3 here).
            rule = "+" + "-" * 52 + "+"
            listing = "\n".join([
                rule, "| GPU instances:" + " " * 37 + "|",
                "| GPU   Name          Profile  Instance   Placement  |",
                "|                       ID       ID       Start:Size |", "|" + "=" * 52 + "|",
                "|   0  MIG 3g.20gb       9        1          4:4     |", rule,
                "|   3  MIG 1g.5gb       19        2          0:1     |", rule]) + "\n"
            lpath = os.path.join(tmp, "lgi.txt")
            with open(lpath, "w", encoding="utf-8") as f:
                f.write(listing)
            args = ["pack", "--gpu", "a100-40gb", "--current", lpath, "2g.10gb"]
            answers = [json.loads(line) for line in migplan(*args, "--json").stdout.splitlines()]
            r = migplan(*args, "--plot", "-")
            panels = [g for g in ET.fromstring(r.stdout).iter(SVG + "g")
                      if g.get("class") == "answer"]
            check([a["gpu_index"] for a in answers] == [0, 3], f"listing: {answers}")
            check([p.get("data-gpu-index") for p in panels] == ["0", "3"],
                  f"listing: panels {[p.attrib for p in panels]}")
            titles = ["".join(t.itertext()) for p in panels for t in p.iter(SVG + "text")
                      if t.get("class") == "title"]
            check([t.split(":")[0] for t in titles] == ["GPU 0", "GPU 3"], f"listing: {titles}")
    CHECKS.finish()


main()
