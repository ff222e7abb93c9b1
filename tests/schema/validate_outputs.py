#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Validates real migplan outputs against the JSON Schemas in schema/.

Usage: validate_outputs.py MIGPLAN_BINARY SOURCE_DIR

Runs the built binary on a broad set of invocations (every command's JSON,
`pack --batch` over generated requests with garbage lines, the error
documents, `check --format json` on every fixture), validates each document
against its schema, and checks what a schema cannot say: memory written with
exactly two decimals, every other number an integer, exit codes that agree
with the documents. Then it makes sure the schemas can fail: deliberately
broken documents must be rejected. Exits 77 (skipped) without python3-jsonschema
4.x, as CI on a bare machine may lack it.

Written for Debian 12's python3-jsonschema (4.10: RefResolver with a store);
with jsonschema 4.18 or later it uses the `referencing` registry instead.
"""

import copy
import decimal
import json
import os
import random
import re
import subprocess
import sys
import tempfile
from urllib.parse import urljoin

SKIP = 77

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    print("skipped: python3-jsonschema (4.x, with draft 2020-12) is not installed")
    sys.exit(SKIP)

BASE = "https://migplan.dev/schema/v1/"
# Input files of `migplan plan`, validated from tests/fixtures/plan.
PLAN_INPUTS = ("demand", "fleet", "state")
# Every schema file and the document kind it describes.
SCHEMAS = ["common", "pack", "pack-batch-line", "error", "gpus", "profiles", "enumerate", "fit",
           "check", "geometry", "demand", "fleet", "state", "emit-nvml", "model", "plan",
           "simulate", "place"]
# Members that may be fractions (plan's costs, bounds and times); every other
# number but memory_gib is an integer.
FRACTION_KEYS = {"cost", "lower_bound", "lp_bound", "gap", "seconds"}
# Members that may be fractions wherever they are (simulate's means and target).
ANYWHERE_FRACTION_KEYS = {"mean_gpus_in_use", "reject_target_percent", "mean", "acceptance_rate",
                          "evicted_share", "reconfiguration_overhead", "create_seconds"}


class Checker:
    def __init__(self, binary, source):
        self.binary = binary
        self.source = source
        self.failures = []
        self.counts = {}
        self.schemas = {}
        for name in SCHEMAS:
            path = os.path.join(source, "schema", name + ".schema.json")
            with open(path, encoding="utf-8") as f:
                self.schemas[name] = json.load(f)
        self.validators = self.make_validators()

    # -- schemas ---------------------------------------------------------------

    def make_validators(self):
        store = {s["$id"]: s for s in self.schemas.values()}
        try:
            # jsonschema >= 4.18: RefResolver is deprecated in favour of this.
            from referencing import Registry, Resource

            registry = Registry().with_resources(
                (uri, Resource.from_contents(s)) for uri, s in store.items())
            make = lambda s: Draft202012Validator(s, registry=registry)
        except ImportError:
            from jsonschema import RefResolver

            def offline(uri):
                raise jsonschema.exceptions.RefResolutionError(f"{uri} is not in schema/")

            # The $ids are identifiers, never fetched: a $ref outside the store fails.
            handlers = {"http": offline, "https": offline}
            make = lambda s: Draft202012Validator(
                s, resolver=RefResolver.from_schema(s, store=store, handlers=handlers))
        self.make = make
        return {name: make(s) for name, s in self.schemas.items()}

    def check_schemas(self):
        for name, s in self.schemas.items():
            where = f"schema/{name}.schema.json"
            try:
                Draft202012Validator.check_schema(s)
            except jsonschema.exceptions.SchemaError as e:
                self.fail(where, f"not a valid draft 2020-12 schema: {e.message}")
            if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
                self.fail(where, "$schema is not draft 2020-12")
            if s.get("$id") != f"{BASE}{name}.schema.json":
                self.fail(where, f"$id is {s.get('$id')!r}, not {BASE}{name}.schema.json")
            # unevaluatedProperties only where subschemas beside it add properties:
            # elsewhere additionalProperties says the same, and python-jsonschema
            # 4.10 pays for unevaluatedProperties by validating subschemas again
            # (this test took 79 s with it on all 72 objects, 45 s without).
            for path in needless_unevaluated(s):
                self.fail(where, f"{path}: unevaluatedProperties with no allOf, anyOf, oneOf, "
                                 "if or $ref beside it; write additionalProperties")
            # Every $ref must resolve (a typo in a branch no output reaches would not show).
            for ref in refs_of(s):
                try:
                    self.make({"$ref": urljoin(s["$id"], ref)}).is_valid(None)
                except Exception as e:  # noqa: BLE001 - any failure is the finding
                    self.fail(where, f"$ref {ref!r} does not resolve: {str(e)[:200]}")

    # -- running migplan -------------------------------------------------------

    def run(self, args, stdin=None, codes=(0,)):
        p = subprocess.run([self.binary, *args], input=stdin, capture_output=True,
                           env=dict(os.environ, NO_COLOR="1"), cwd=self.source)
        where = " ".join(map(str, args))
        if p.returncode not in codes:
            self.fail(where, f"exit {p.returncode}, expected one of {codes}; stderr: "
                      f"{p.stderr.decode(errors='replace')[:300]}")
        try:
            return p.stdout.decode("utf-8"), p.returncode
        except UnicodeDecodeError as e:
            self.fail(where, f"output is not UTF-8: {e}")
            return "", p.returncode

    def fail(self, where, what):
        self.failures.append(f"{where}: {what}")

    def validate(self, kind, text, where):
        """Validates one JSON document (text) as `kind`; returns it parsed."""
        try:
            doc = json.loads(text)
            exact = json.loads(text, parse_float=decimal.Decimal)
        except ValueError as e:
            self.fail(where, f"not JSON ({e}): {text[:200]!r}")
            return None
        self.counts[kind] = self.counts.get(kind, 0) + 1
        # Deepest first: a failed member also makes its parents report it as unevaluated.
        errors = sorted(self.validators[kind].iter_errors(doc), key=lambda e: -len(e.path))
        for e in errors[:5]:
            path = "/".join(str(p) for p in e.absolute_path)
            self.fail(where, f"{kind}.schema.json at /{path}: {e.message[:300]}")
        if kind not in PLAN_INPUTS:  # input files: their schema types their numbers (cost: 2.5)
            self.check_numbers(exact, where, "")
        return None if errors else doc

    def check_numbers(self, v, where, path):
        """memory_gib has exactly two decimals; every other number is an integer."""
        if isinstance(v, dict):
            for k, x in v.items():
                if k == "memory_gib" and x is not None:
                    if not (isinstance(x, decimal.Decimal) and x.as_tuple().exponent == -2):
                        self.fail(where, f"{path}/{k} is {x}, not a number with two decimals")
                elif (k in FRACTION_KEYS and path == "") or k in ANYWHERE_FRACTION_KEYS:
                    continue
                else:
                    self.check_numbers(x, where, f"{path}/{k}")
        elif isinstance(v, list):
            for i, x in enumerate(v):
                self.check_numbers(x, where, f"{path}/{i}")
        elif isinstance(v, decimal.Decimal):
            self.fail(where, f"{path} is {v}, a fraction where an integer belongs")

    def expect_invalid(self, kind, doc, what):
        """A broken document must be rejected: the schemas can fail."""
        self.counts["rejected"] = self.counts.get("rejected", 0) + 1
        if self.validators[kind].is_valid(doc):
            self.fail(f"negative test ({what})", f"{kind}.schema.json accepts it")

    # -- the invocations -------------------------------------------------------

    def gpus(self):
        text, _ = self.run(["gpus", "--json"])
        doc = self.validate("gpus", text, "gpus --json")
        self.models = {g["id"]: g for g in doc["gpus"]}
        return doc

    def profiles(self):
        self.validate("profiles", self.run(["profiles", "--json"])[0], "profiles --json")
        self.validate("profiles", self.run(["profiles", "--json", "--ci"])[0],
                      "profiles --json --ci")
        self.rows = {}
        self.ci_rows = {}
        for slug in self.models:
            doc = self.validate("profiles", self.run(["profiles", "--json", "--gpu", slug])[0],
                                f"profiles --json --gpu {slug}")
            self.rows[slug] = doc["gpus"][0]["profiles"]
            doc = self.validate("profiles",
                                self.run(["profiles", "--json", "--ci", "--gpu", slug])[0],
                                f"profiles --json --ci --gpu {slug}")
            self.ci_rows[slug] = doc["gpus"][0]["profiles"]

    def enumerate(self):
        for slug in self.models:
            for extra in ([], ["--maximal"]):
                args = ["enumerate", "--json", "--gpu", slug, *extra]
                self.validate("enumerate", self.run(args)[0], " ".join(args))

    def simulate(self):
        trace = ("name,start,end,count,item\n"
                 "a,0,100,6,1g.10gb\nb,10,60,3,2g.20gb\nc,20,200,2,3g.40gb\n"
                 "d,50,120,1,2xgpu\ne,70,,4,1g.10gb\n").encode()
        alibaba = ("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
                   "creation_time,deletion_time,scheduled_time\n"
                   "p0,1,1,1,1000,,LS,Running,0,500,0\np1,1,1,1,300,,LS,Running,10,90,10\n"
                   "p2,1,1,0,0,,BE,Running,10,90,10\np3,1,1,2,1000,,LS,Running,20,,20\n").encode()
        for text, extra, codes in [
                (trace, [], (0,)), (trace, ["--gpus", "1"], (1,)),
                (trace, ["--size", "--policy", "spread-best-fit", "--policy", "static-pack"], (0,)),
                (trace, ["--size", "--reject-target", "10", "--gpus-per-node", "2"], (0,)),
                (alibaba, ["--share", "memory"], (0, 1)),
                (trace, ["--gpus", "1", "--queue"], (1,)),
                (trace, ["--gpus", "2", "--backfill", "--policy", "static"], (0, 1)),
                (trace, ["--size", "--queue", "--wait-target", "p95=1m", "--gpus-per-node", "2"],
                 (0,)),
                (trace, ["--gpus", "2", "--backfill", "--policy", "replan:30s", "--policy",
                         "replan-oracle:1m", "--reconfigure-seconds", "5"], (0, 1)),
                (trace, ["--gpus", "2", "--policy", "replan:40s"], (0, 1)),
                (trace, ["--gpus", "1", "--keep-idle", "30s", "--create-seconds", "0.25",
                         "--policy", "hami", "--policy", "static"], (0, 1)),
                (trace, ["--gpus", "1", "--backfill", "--keep-idle", "0"], (0, 1)),
                (trace, ["--gpus", "2", "--queue", "--policy", "pack-best-fit+defrag:2",
                         "--policy", "pack-best-fit"], (0, 1))]:
            args = ["simulate", "--json", "--trace", "-", "--gpu", "h100-80gb", *extra]
            self.validate("simulate", self.run(args, stdin=text, codes=codes)[0], " ".join(args))
        # Several models sized: --gpu twice (memory sizes resolve on both).
        mem = "start,end,item\n0,100,mem=10GiB\n10,60,gpu\n".encode()
        args = ["simulate", "--json", "--trace", "-", "--gpu", "h100-80gb", "--gpu", "a30", "--size"]
        self.validate("simulate", self.run(args, stdin=mem, codes=(0,))[0], " ".join(args))
        # A plan of one's own as the static geometry.
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(self.run(["plan", "--json", "--gpu", "h100-80gb", "7x1g.10gb"])[0])
        try:
            args = ["simulate", "--json", "--trace", "-", "--gpu", "h100-80gb", "--static-plan", f.name]
            self.validate("simulate", self.run(args, stdin=trace, codes=(0, 1))[0], " ".join(args))
        finally:
            os.unlink(f.name)
        # The fleet as it is: its own static geometry, its own nodes.
        state = os.path.join(self.source, "tests/fixtures/place/state.yaml")
        args = ["simulate", "--json", "--trace", "-", "--current", state]
        self.validate("simulate", self.run(args, stdin=trace, codes=(1,))[0], " ".join(args))
        # kubectl's nodes of two models as they are: geometries that name their gpu.
        fixtures = os.path.join(self.source, "tests/fixtures/plan")
        args = ["simulate", "--json", "--trace", "-", "--current",
                os.path.join(fixtures, "kube-nodes.json"), "--mig-config",
                os.path.join(fixtures, "kube-config.yaml")]
        self.validate("simulate", self.run(args, stdin=mem, codes=(0, 1))[0], " ".join(args))
        # A fleet of several models: per-model figures, no static geometry.
        with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
            f.write("version: 1\nnodes:\n  - {name: h, gpu: h100-80gb, gpus: 2}\n"
                    "  - {name: a, gpu: a30, gpus: 2}\n")
        try:
            for extra in ([], ["--backfill", "--policy", "hami", "--keep-idle", "10s"]):
                args = ["simulate", "--json", "--trace", "-", "--fleet", f.name, *extra]
                self.validate("simulate", self.run(args, stdin=mem, codes=(0, 1))[0],
                              " ".join(args))
        finally:
            os.unlink(f.name)

    def place(self):
        state = os.path.join(self.source, "tests/fixtures/place/state.yaml")
        full = os.path.join(self.source, "data/captures/h100-80gb-hbm3-lgi-7x1g.txt")
        fragmented = os.path.join(self.source, "tests/fixtures/place/fragmented.yaml")
        for extra, codes in [
                (["3g.40gb", "--current", state], (0,)),
                (["1g.10gb", "--current", state, "--policy", "pack-best-fit",
                  "--alternatives", "0"], (0,)),
                (["2g.20gb", "--gpu", "h100-80gb", "--current", full], (1,)),
                (["4g.40gb", "--current", fragmented, "--allow-moves", "3"], (0,)),
                (["7g.80gb", "--current", fragmented, "--allow-moves", "3"], (1,)),
                (["1g.10gb", "--current", fragmented, "--allow-moves", "3"], (0,))]:
            args = ["place", "--json", *extra]
            self.validate("place", self.run(args, codes=codes)[0], " ".join(args))

    def fit(self):
        cases = [
            ("a100-40gb", ["--memory", "4Gi"], 0),
            ("a100-40gb", ["--memory", "12Gi", "--count", "20"], 0),
            ("h100-80gb", ["--memory", "12Gi", "--count", "20"], 0),
            ("h100-80gb", ["--memory", "30G", "--sms", "40"], 0),
            ("a30", ["--memory", "20GiB"], 0),
            ("rtx-pro-6000", ["--memory", "20Gi", "--count", "7"], 0),
            ("gb200", ["--memory", "100Gi"], None), ("a100-80gb", ["--memory", "1.5Gi"], 0),
            ("a100-40gb", ["--memory", "1Ti"], 1), ("a30", ["--memory", "25Gi"], 1),
            ("h100-80gb", ["--memory", "10Gi", "--sms", "500"], 1),
            ("h20", ["--memory", "10Gi"], 1), ("rtx-pro-5000", ["--memory", "1Gi"], 1),
        ]
        for slug in self.models:
            cases.append((slug, ["--memory", "1Mi"], None))
            cases.append((slug, ["--memory", "40GB", "--count", "9"], None))
        for slug, extra, code in cases:
            args = ["fit", "--json", "--gpu", slug, *extra]
            text, rc = self.run(args, codes=(0, 1) if code is None else (code,))
            doc = self.validate("fit", text, " ".join(args))
            if doc is not None and doc["fits"] != (rc == 0):
                self.fail(" ".join(args), f"fits is {doc['fits']} but the exit code is {rc}")

    def pack_requests(self):
        """(args, expected exit codes) for single `pack --json` runs."""
        cases = []
        rng = random.Random(13)
        for slug in ["a100-40gb", "a100-80gb", "h100-80gb", "a30", "rtx-pro-6000", "gb200",
                     "rtx-pro-5000", "h20", "b300"]:
            rows = self.rows[slug]
            units = self.models[slug]["units"]
            for p in rows:
                n, cap = p["name"], p["max_instances"]
                cases.append((["--gpu", slug, n], (0,)))
                cases.append((["--gpu", slug, f"{cap}x{n}"], (0,)))
                cases.append((["--gpu", slug, f"{cap + 1}x{n}"], (1,)))  # instance_cap
                cases.append((["--gpu", slug, f"{n}@{p['starts'][-1]}"], (0,)))
                bad = [u for u in range(units) if u not in p["starts"]]
                if bad:
                    cases.append((["--gpu", slug, f"{n}@{bad[0]}"], (1,)))  # bad_start
                cases.append((["--gpu", slug, f"{n}@{units}"], (2,)))  # outside the gpu
                cases.append((["--gpu", slug, "--all", f"2x{n}" if cap >= 2 else n], (0, 1)))
            for _ in range(12):
                req = [rng.choice(rows)["name"] for _ in range(rng.randint(2, 5))]
                cases.append((["--gpu", slug, *req], (0, 1)))
                cases.append((["--gpu", slug, "--all", *req], (0, 1)))
            # Compute instances: every CI profile alone, over its cap, split with
            # others, and on GPU instances whose CI profiles are unknown.
            for p in self.ci_rows[slug]:
                n, cis = p["name"], p["ci_profiles"]
                if cis is None:
                    cases.append((["--gpu", slug, f"{n}[1c]"], (1,)))  # unknown_ci_profile
                    continue
                for c in cis:
                    k = c["compute_slices"]
                    cases.append((["--gpu", slug, f"{n}[{c['max_instances']}x{k}c]"], (0,)))
                    cases.append((["--gpu", slug, f"{n}[{c['max_instances'] + 1}x{k}c]"], (1,)))
                    cases.append((["--gpu", slug, "--all", f"2x{c['name']}"], (0, 1)))
                every = ",".join(f"{c['compute_slices']}c" for c in cis)
                cases.append((["--gpu", slug, f"{n}[{every}]"], (0, 1)))
        cases += [
            (["--gpu", "a100-40gb", "4g.20gb", "2g.10gb", "1g.5gb"], (0,)),
            (["--gpu", "a100-40gb", "7x1g.5gb", "3g.20gb"], (1,)),  # memory_units
            (["--gpu", "a100-40gb", "4g.20gb", "2x2g.10gb"], (1,)),  # compute_slices
            (["--gpu", "a30", "1g.6gb+me", "2g.12gb+me"], (1,)),  # engines
            (["--gpu", "a100-40gb", "3g.20gb@0", "4g.20gb"], (1,)),  # placement
            (["--gpu", "a100-40gb", "1g.5gb@7"], (1,)),  # bad_start
            (["--gpu", "h100-80gb", "3x3g.40gb"], (1,)),  # instance_cap, closest fits
            (["--gpu", "a100-40gb", "--all", "3x1g.5gb"], (0,)),
            (["--gpu", "a100-40gb", "--all", "1g.5gb"], (0,)),
            (["--gpu", "0x20B010DE", "MIG 3g.20gb", "3G.20GB"], (0,)),
            (["--gpu", "NVIDIA A30", "2x14"], (0, 1)),
            (["4g.20gb", "2g.10gb", "1g.5gb"], (0,)),  # inferred gpu
            (["4x1g.10gb", "3g.40gb"], (0,)),  # same answer on several models
            (["7g.80gb"], (0,)),
            (["3g.40gb", "3g.40gb", "3g.40gb"], (1,)),
            (["--gpu", "rtx-pro-6000", "1g.24gb+me.all", "3x1g.24gb-me"], (0, 1)),
            (["--gpu", "gb200", "1g.23gb", "4g.93gb"], (0, 1)),
            (["--gpu", "a100-80gb", "1g.20gb", "1g.10gb"], (0, 1)),  # inferred values
            (["--gpu", "b300", "7g.269gb"], (0,)),  # memory of a config-only model
            (["--gpu", "a100-40gb", "3g.20gb[2c,1c]", "3x1c.3g.20gb"], (0,)),
            (["--gpu", "a100-40gb", "3g.20gb[2c,1c,1c]"], (1,)),  # ci_slices
            (["--gpu", "a100-40gb", "4g.20gb[3c]"], (1,)),  # unknown_ci_profile
            (["--gpu", "a100-40gb", "7x1c.3g.20gb"], (1,)),  # instance_cap of the implied GIs
            (["--gpu", "a100-40gb", "7g.40gb[4c,3c]"], (0,)),
            (["--gpu", "h100-80gb", "3g.40gb", "1g.20gb"], (0,)),  # null / 7 default CI IDs
            (["3x1c.3g.20gb"], (0,)),  # inferred gpu
            (["1c.3g.40gb"], (2,)),  # ambiguous: unknown on the H100s
            (["--gpu", "a100-40gb", "--current", "data/captures/a100-40gb-lgi-example1.txt",
              "1g.5gb[1c]"], (1,)),
            # --current: existing instances pinned; blocked_by_current when they block
            (["--gpu", "a100-40gb", "--current", "data/captures/a100-40gb-lgi-example1.txt",
              "1g.5gb"], (1,)),
            (["--gpu", "h100-80gb", "--current", "data/captures/h100-80gb-hbm3-lgi-7x1g.txt"], (0,)),
            (["--gpu", "a100-40gb", "--all", "--current",
              "data/captures/a100-40gb-lgi-example3.txt"], (0,)),
        ]
        return cases

    def pack(self):
        for args, codes in self.pack_requests():
            full = ["pack", "--json", *args]
            text, rc = self.run(full, codes=codes)
            doc = self.validate("error" if rc == 2 else "pack", text, " ".join(full))
            if rc == 2:
                continue
            if rc == 0:
                self.pack_answers[tuple(args)] = text  # emit_nvml compares with it
            if doc is not None and doc["feasible"] != (rc == 0):
                self.fail(" ".join(full), f"feasible is {doc['feasible']}, exit code {rc}")
            if doc is not None and doc["reason"]:
                self.reason_codes.add(doc["reason"]["code"])

    def pack_current(self):
        """pack --current: an -lgi + -lci listing, several GPUs (JSON lines), a JSON answer."""
        cap = os.path.join(self.source, "data", "captures")
        with open(os.path.join(cap, "h100-80gb-hbm3-lgi-7x1g.txt")) as a, \
                open(os.path.join(cap, "h100-80gb-hbm3-lci-7x1g.txt")) as b:
            both = (a.read() + b.read()).encode()
        for items, codes in ([], (0,)), (["1g.10gb"], (1,)):
            args = ["pack", "--json", "--gpu", "h100-80gb", "--current", "-", *items]
            text, rc = self.run(args, stdin=both, codes=codes)
            doc = self.validate("pack", text, " ".join(args))
            if doc is not None and rc == 1 and doc["reason"]["code"] != "blocked_by_current":
                self.fail(" ".join(args), "expected the reason blocked_by_current")
        row = "|   {}  MIG 3g.20gb       9        1          {}:4     |\n"
        frame = "+----------------------------------------------------+\n"
        two = (frame + "| GPU instances:                                     |\n"
               "| GPU   Name          Profile  Instance   Placement  |\n"
               "|                       ID       ID       Start:Size |\n"
               "|====================================================|\n"
               + row.format(0, 4) + frame + row.format(1, 0) + frame).encode()
        args = ["pack", "--json", "--gpu", "a100-40gb", "--current", "-", "4g.20gb"]
        text, _ = self.run(args, stdin=two, codes=(1,))
        lines = text.splitlines()
        if len(lines) != 2:
            self.fail(" ".join(args), f"expected one JSON line per GPU, got {len(lines)}")
        for line in lines:
            self.validate("pack", line, " ".join(args))
        answer, _ = self.run(["pack", "--json", "--gpu", "a100-40gb", "3g.20gb"])
        for items, codes in (["2g.10gb"], (0,)), (["2x3g.20gb"], (1,)):
            args = ["pack", "--json", "--current", "-", *items]
            text, _ = self.run(args, stdin=answer.encode(), codes=codes)
            self.validate("pack", text, " ".join(args))
    def emit_nvml(self):
        """`pack --emit nvml` on every single-request case: the new instances of
        the preferred layout, the same ones `pack --json` places."""
        for args, codes in self.pack_requests():
            if "--all" in args:
                continue  # --emit writes one layout: --all is refused
            full = ["pack", "--emit", "nvml", *args]
            where = " ".join(full)
            text, rc = self.run(full, codes=(*codes, 2))
            if rc == 1 and text:
                self.fail(where, "a request that does not fit wrote to stdout")
            if rc != 0:
                continue
            doc = self.validate("emit-nvml", text, where)
            if doc is None:
                continue
            # The answer pack() validated for the same request (not run twice).
            known = self.pack_answers.get(tuple(args))
            answer = json.loads(known if known is not None else
                                self.run(["pack", "--json", *args], codes=(0,))[0])
            placed = sorted((i["profile_id"], i["start"]) for i in answer["layouts"][0]["instances"])
            existing = sorted((i["profile_id"], i["start"]) for i in answer["current"] or [])
            created = sorted((c["profile_id"], c["start"]) for c in doc["create"])
            if sorted(created + existing) != placed or doc["gpu"] != answer["gpu"]["id"]:
                self.fail(where, f"creates {created} beside {existing}; pack --json places {placed}")

    def pack_errors(self):
        bad = [
            ["0x1g.5gb"], ["-1x1g.5gb"], ["99999999999x1g.5gb"], ["1g.5gb@x"],
            ["--gpu", "a100-40gb", "1g.5gb@9"],
            ["--gpu", "a100-40gb"], ["--gpu", "", "1g.5gb"], ["--gpu", "a100", "1g.5gb"],
            ["--gpu", "rtx", "1g.5gb"], ["--gpu", "a100-40gb", "1g.5bg"],
            ["--gpu", "a100-80gb", "7g.79gb"],
            ["nosuch.profile"], ["1g.5gb", "1g.24gb"], ["--brief", "1g.5gb"],
            ["--batch", "-", "1g.5gb"], ["--gpu", "a100-40gb", *["1000x1g.5gb"] * 2],
            ["--gpu", "a100-40gb", "x" * 300],
            ["--gpu", "a100-40gb", b"bad\x1b[31m\xff\xc3\x28"],  # escapes, invalid UTF-8
        ]
        for args in bad:
            full = ["pack", "--json", *args]
            where = " ".join(map(str, full))
            text, _ = self.run(full, codes=(2,))
            doc = self.validate("error", text, where)
            if doc is not None and doc["error"]["code"] != "bad_input":
                self.fail(where, f"code {doc['error']['code']}, expected bad_input")
        for args in (["5x1g.10gb"], ["1g.10gb"], ["1g.24gb+me.all"]):
            full = ["pack", "--json", *args]
            text, _ = self.run(full, codes=(2,))
            doc = self.validate("error", text, " ".join(full))
            if doc is not None and doc["error"]["code"] != "ambiguous_gpu":
                self.fail(" ".join(full), f"code {doc['error']['code']}, expected ambiguous_gpu")

    def file_errors(self):
        """Bad input found in a file: the error document places it."""
        bad_demand = os.path.join(self.source, "tests", "fixtures", "plan", "bad-demand.yaml")
        cases = [
            (["plan", "--json", "--gpu", "h100-80gb", "--demand", bad_demand], None),
            (["plan", "--json", "--fleet", "-", "1g.10gb"],
             b"version: 1\nnodes:\n  - name: a\n    gpu: h100-80gbx\n    gpus: 1\n"),
            (["simulate", "--json", "--gpu", "h100-80gb", "--trace", "-"],
             b"name,start,end,count,item\nbad,0,10,1,1g.10gbx\n"),
            (["plan", "--json", "--gpu", "h100-80gb", "--demand", "-"], b""),
        ]
        for args, stdin in cases:
            where = " ".join(args)
            text, _ = self.run(args, stdin=stdin, codes=(2,))
            doc = self.validate("error", text, where)
            if doc is not None and "file" not in doc["error"]:
                self.fail(where, "bad input found in a file names no file")

    def batch_input(self, rng):
        names = sorted({p["name"] for rows in self.rows.values() for p in rows})
        lines = ["# generated requests, garbage included", ""]
        for i in range(400):
            kind = rng.random()
            if kind < 0.6:
                items = []
                for _ in range(rng.randint(1, 6)):
                    it = rng.choice(names)
                    if rng.random() < 0.3:
                        it = f"{rng.randint(1, 4)}x{it}"
                    if rng.random() < 0.2:
                        it += f"@{rng.randint(0, 8)}"
                    items.append(it)
                lines.append(rng.choice([" ", ",", ", "]).join(items))
            elif kind < 0.75:
                lines.append(rng.choice(["0x1g.5gb", "1g.5gb@x", "-1x1g.5gb", "x", "@@", "1g.5bg",
                                         "5x1g.10gb", "1g.5gb 1g.24gb", "\t\x01\x7f", "é 1g.5gb",
                                         "1000x1g.5gb " * 3, "3g.20gb@99", "MIG", "nvidia",
                                         "2x2x1g.5gb", "1g.5gb\x1b[2J"]))
            elif kind < 0.85:
                lines.append(rng.choice(["", "   ", "# comment", "  # indented comment"]))
            else:
                lines.append(rng.choice(["4g.20gb 2g.10gb 1g.5gb", "3x3g.20gb", "7x1g.5gb 3g.20gb",
                                         "3g.20gb@0 4g.20gb # trailing comment", "1g.10gb"]))
        return lines

    def batch(self):
        rng = random.Random(2024)
        raw_lines = [l.encode("utf-8") for l in self.batch_input(rng)]
        raw_lines[100:100] = [b"\xff\xfe 1g.5gb", b"1g.5gb@\xc3\x28", b"\xe2\x80\xae3g.20gb"]
        # A byte-order mark and CRLF line ends, both accepted.
        data = b"\xef\xbb\xbf" + b"\r\n".join(raw_lines) + b"\r\n"
        for extra in (["--gpu", "a100-40gb"], ["--gpu", "h100-80gb", "--all"], [],
                      ["--gpu", "a30"], ["--gpu", "rtx-pro-6000"]):
            args = ["pack", "--batch", "-", *extra]
            text, _ = self.run(args, stdin=data, codes=(0, 1, 2))
            expected = [i + 1 for i, l in enumerate(raw_lines)
                        if re.sub(rb"[ \t,\r\n]", b"", l.split(b"#")[0])]
            got = []
            for k, line in enumerate(text.splitlines()):
                doc = self.validate("pack-batch-line", line,
                                    f"{' '.join(args)} (output line {k + 1})")
                if doc is not None:
                    got.append(doc["line"])
            if got != expected:
                self.fail(" ".join(args),
                          f"answered lines {got[:10]}..., expected {expected[:10]}...")
        # Past the line limit: one last error line, exit 2.
        long = b"1g.5gb\n" + b"1g.5gb " * 10000 + b"\n1g.5gb\n"
        text, _ = self.run(["pack", "--batch", "-", "--gpu", "a100-40gb"], stdin=long, codes=(2,))
        for k, line in enumerate(text.splitlines()):
            self.validate("pack-batch-line", line,
                          f"pack --batch over the line limit (line {k + 1})")

    def check_files(self):
        files = []
        for top in ("tests/fixtures/check", "tests/fixtures/mig-parted", "examples"):
            for d, _, fs in os.walk(os.path.join(self.source, top)):
                files += [os.path.relpath(os.path.join(d, f), self.source) for f in sorted(fs)]
        runs = [[f] for f in sorted(files)]
        runs += [
            ["tests/fixtures/check"], ["tests/fixtures/check/scan"], ["tests/fixtures/mig-parted"],
            ["examples"], ["--strict", "tests/fixtures/check"],
            ["--gpu", "a100-40gb", "--gpu", "h100-80gb", "tests/fixtures/check"],
            ["-c", "all-1g.10gb", "-c", "no-such-label",
             "tests/fixtures/mig-parted/config-default.yaml"],
            ["--max-errors", "1", "examples/invalid-geometry.yaml"], ["/nonexistent/config.yaml"],
            ["tests/fixtures/check/dir/README.txt"],
        ]
        for args in runs:
            for v in ([], ["-v"]):
                full = ["check", "--format", "json", *v, *args]
                text, rc = self.run(full, codes=(0, 1, 2))
                doc = self.validate("check", text, " ".join(full))
                if doc is None:
                    continue
                if doc["summary"]["exit_code"] != rc:
                    self.fail(" ".join(full),
                              f"summary.exit_code {doc['summary']['exit_code']}, exit {rc}")
                for f in doc["files"]:
                    self.seen |= {("file status", f["status"]), ("format", f["format"])}
                    self.seen |= {("severity", d["severity"]) for d in f["diagnostics"]}
                    for g in f["geometries"]:
                        self.seen.add(("geometry status", g["status"]))
                        self.seen |= {("model status", m["status"]) for m in g["models"]}
                        if g["config"] != g["label"]:
                            self.fail(" ".join(full),
                                      f"config {g['config']!r} != label {g['label']!r}")
        # Standard input.
        with open(os.path.join(self.source, "examples/geometry.yaml"), "rb") as f:
            text, _ = self.run(["check", "--format", "json", "-"], stdin=f.read())
        self.validate("check", text, "check --format json - < examples/geometry.yaml")
        # mig-parted entries that name compute-instance profiles: valid, over the GI cap,
        # a CI profile the GI lacks, and a GI whose CI profiles are unknown.
        cis = "".join(
            f"  {label}:\n    - device-filter: [\"{pci}\"]\n      devices: all\n"
            f"      mig-enabled: true\n      mig-devices: {{{devices}}}\n"
            for label, pci, devices in [
                ("ok", "0x20B010DE", '"1c.3g.20gb": 6'),
                ("mixed", "0x20B010DE", '"2c.3g.20gb": 1, "1c.3g.20gb": 1, "4g.20gb": 1'),
                ("over", "0x20B010DE", '"1c.3g.20gb": 7'),
                ("no-3c", "0x20B010DE", '"3c.4g.20gb": 1'),
                ("unknown", "0x233010DE", '"1c.3g.40gb": 2')])
        text, rc = self.run(["check", "--format", "json", "-"],
                            stdin=("version: v1\nmig-configs:\n" + cis).encode(), codes=(1,))
        doc = self.validate("check", text, "check --format json - < (mig-parted config with CIs)")
        if doc is not None:
            codes = sorted(m["reason"]["code"] for g in doc["files"][0]["geometries"]
                           for m in g["models"] if m["reason"] is not None)
            if codes != ["instance_cap", "unknown_ci_profile", "unknown_ci_profile"]:
                self.fail("check with CI profiles", f"reason codes {codes}")

    # -- input formats ---------------------------------------------------------

    def geometry(self):
        with open(os.path.join(self.source, "examples/geometry.json"), encoding="utf-8") as f:
            self.validate("geometry", f.read(), "examples/geometry.json")
        try:
            import yaml
        except ImportError:
            print("note: python3-yaml is not installed; the YAML examples are not validated")
            yaml = None
        if yaml is not None:
            with open(os.path.join(self.source, "examples/geometry.yaml"), encoding="utf-8") as f:
                self.validate("geometry", json.dumps(yaml.safe_load(f)), "examples/geometry.yaml")
            # Its one problem a schema can see: the misspelt 1g.5bg. The others
            # (unknown model, caps, an index given twice) are for migplan check.
            path = os.path.join(self.source, "examples/invalid-geometry.yaml")
            with open(path, encoding="utf-8") as f:
                doc = yaml.safe_load(f)
            self.counts["geometry"] = self.counts.get("geometry", 0) + 1
            found = sorted("/".join(map(str, e.absolute_path))
                           for e in self.validators["geometry"].iter_errors(doc))
            if found != ["gpus/0/instances/1"]:
                self.fail("examples/invalid-geometry.yaml", f"schema errors at {found}, "
                          "expected only gpus/0/instances/1 (2x1g.5bg)")
        # Every profile name the CLI accepts matches the item pattern.
        item = self.make({"$ref": BASE + "geometry.schema.json#/$defs/item"})
        for rows in self.rows.values():
            for p in rows:
                n = p["name"]
                for text in (n, n.upper(), f"MIG {n}", f"2x{n}", f"{n}@{p['starts'][-1]}",
                             f"3X{n}@0", str(p["id"]), f"2x{p['id']}", f"{n}, {n}"):
                    if not item.is_valid(text):
                        self.fail("geometry.schema.json item",
                                  f"rejects {text!r}, which check accepts")
        for text in ("1g.5bg", "0x1g.5gb", "1g.5gb@", "1g.5gb@16", "", "MIG", "1001x1g.5gb"):
            self.expect_invalid_with(item, text, f"item {text!r}")

    def plan(self):
        """`plan --json`: fresh plans, a fleet of nodes, re-plans, unmet demand."""
        fx = "tests/fixtures/plan/"
        cases = [
            (["--gpu", "h100-80gb", "7x1g.10gb"], 0),
            (["--gpu", "h100-80gb", "8x1g.10gb", "2x3g.40gb", "3xmem=30GiB"], 0),
            (["--gpu", "h100-80gb", "--gpu", "a100-40gb", "--cost", "h100-80gb=2.5",
              "4x3g.40gb", "2x2g.10gb"], 0),
            (["--gpu", "a30", "--available", "a30=1", "5x1g.6gb"], 1),
            (["--gpu", "a100-40gb", "6x1c.3g.20gb", "2x1g.5gb", "1x2c.3g.20gb"], 0),
            (["--demand", fx + "demand.yaml", "--fleet", fx + "fleet.yaml"], (0, 1)),
            (["--demand", fx + "demand.csv", "--gpu", "h100-80gb", "--time-limit", "5"], (0, 1)),
            (["--current", fx + "state.json", "1g.10gb"], (0, 1)),
            (["--current", fx + "state.json", "--allow-evict", "7x1g.10gb"], (0, 1)),
            (["--current", fx + "state.json", "100x7g.80gb"], 1),
            (["--current", fx + "kube-nodes.json", "--mig-config", fx + "kube-config.yaml",
              "2x1g.10gb"], (0, 1)),
        ]
        for extra, code in cases:
            args = ["plan", "--json", *extra]
            text, rc = self.run(args, codes=code if isinstance(code, tuple) else (code,))
            doc = self.validate("plan", text, " ".join(args))
            if doc is None:
                continue
            if doc["feasible"] != (rc == 0):
                self.fail(" ".join(args), f"feasible is {doc['feasible']} but the exit is {rc}")
            if ("changes" in doc) != any(a == "--current" for a in extra):
                self.fail(" ".join(args), "changes present without --current, or absent with it")
            for g in doc["groups"]:
                for run in g["assignment"]:
                    for s in run["serves"]:
                        for item in s if isinstance(s, list) else [s]:
                            if item is not None and not 0 <= item < len(doc["demand"]):
                                self.fail(" ".join(args), f"serves {item} is no demand item")
            self.plan_doc = doc
        broken = copy.deepcopy(self.plan_doc)
        broken["feasible"] = True
        broken["unmet"] = [{"item": 0, "name": "x", "missing": 1}]
        self.expect_invalid("plan", broken, "plan: feasible with unmet demand")
        broken = copy.deepcopy(self.plan_doc)
        broken.pop("changes_lower_bound", None)
        broken["changes"] = []
        self.expect_invalid("plan", broken, "plan: changes without changes_lower_bound")
        broken = copy.deepcopy(self.plan_doc)
        broken["schema_version"] = 1
        self.expect_invalid("plan", broken, "plan: schema_version 1")
        if self.plan_doc["groups"]:
            broken = copy.deepcopy(self.plan_doc)
            del broken["groups"][0]["assignment"]
            self.expect_invalid("plan", broken, "plan: a group without its assignment")

    def plan_inputs(self):
        """The plan input fixtures the readers' tests accept, and broken copies of them."""
        plan = os.path.join(self.source, "tests/fixtures/plan")
        docs = {}
        for kind in ("demand", "fleet", "state"):
            with open(os.path.join(plan, kind + ".json"), encoding="utf-8") as f:
                docs[kind] = self.validate(kind, f.read(), f"tests/fixtures/plan/{kind}.json")
        try:
            import yaml
        except ImportError:
            yaml = None
        if yaml is not None:
            for kind in ("demand", "fleet"):
                with open(os.path.join(plan, kind + ".yaml"), encoding="utf-8") as f:
                    self.validate(kind, json.dumps(yaml.safe_load(f)),
                                  f"tests/fixtures/plan/{kind}.yaml")
        item = lambda d: d["demand"][0]
        node = lambda d: d["nodes"][0]
        inst = lambda d: d["nodes"][0]["gpus"][0]["instances"][0]
        cases = [
            ("demand", lambda d: item(d).update(count=0), "a zero count"),
            ("demand", lambda d: item(d).update(count="3"), "a count as a string"),
            ("demand", lambda d: item(d).update(memory="30GiB"), "profile and memory"),
            ("demand", lambda d: item(d).pop("profile"), "neither profile nor memory"),
            ("demand", lambda d: item(d).update(profile="1g.10bg"), "a misspelt profile"),
            ("demand", lambda d: item(d).update(profile="19"), "a profile ID"),
            ("demand", lambda d: item(d).update(sms=4), "sms with a profile"),
            ("demand", lambda d: d["demand"][2].update(memory="30"), "memory without a unit"),
            ("demand", lambda d: item(d).update(cout=3), "a misspelt key"),
            ("demand", lambda d: d.update(demand=[]), "no items"),
            ("fleet", lambda d: d.pop("models"), "neither models nor nodes"),
            ("fleet", lambda d: d["models"][0].update(cost=0), "a zero cost"),
            ("fleet", lambda d: d.update(nodes=[{"name": "a", "gpu": "a30", "gpus": 0}]),
             "a node of no GPUs"),
            ("fleet", lambda d: d.update(version="1"), "version the string 1"),
            ("state", lambda d: node(d).pop("gpus"), "a node without gpus"),
            ("state", lambda d: inst(d).update(start=16), "a start past every unit"),
            ("state", lambda d: inst(d).update(in_use="yes"), "in_use a string"),
            ("state", lambda d: node(d)["gpus"][0].update(index=64), "an index of 64"),
        ]
        for kind, change, what in cases:
            if docs[kind] is None:
                continue  # reported by validate
            broken = copy.deepcopy(docs[kind])
            change(broken)
            self.expect_invalid(kind, broken, what)
    # -- model files: what import writes, what --gpu-file reads ------------------

    def model_files(self):
        """Every full capture pair imports into a model file the schema accepts; the models
        those files and examples/model.json hold then appear in every command's output."""
        example = "examples/model.json"
        with open(os.path.join(self.source, example), encoding="utf-8") as f:
            text = f.read()
        self.example_model = self.validate("model", text, example)
        captures = os.path.join(self.source, "data", "captures")
        pairs = []
        for name in sorted(os.listdir(captures)):
            if not name.endswith("-lgip.txt"):
                continue
            lgipp = name.replace("-lgip.txt", "-lgipp.txt")
            if os.path.exists(os.path.join(captures, lgipp)):
                pairs.append((name, lgipp))
        if len(pairs) < 6:
            self.fail("data/captures", f"only {len(pairs)} -lgip/-lgipp pairs to import")
        self.tmp = tempfile.mkdtemp(prefix="migplan-schema-")
        files = [example]
        for lgip, lgipp in pairs:
            slug = lgip.replace("-lgip.txt", "") + "-imported"
            args = ["import", "--lgip", f"data/captures/{lgip}", "--lgipp",
                    f"data/captures/{lgipp}", "--name", slug, "--pci-id", "0xFFF0"]
            text, rc = self.run(args, codes=(0,))
            doc = self.validate("model", text, " ".join(args))
            if doc is None:
                continue
            path = os.path.join(self.tmp, slug + ".json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            # Each file alone: their PCI IDs are the same made-up one.
            loaded = ["--gpu-file", path]
            self.validate("gpus", self.run([*loaded, "gpus", "--json"])[0], f"gpus with {slug}")
            self.validate("profiles", self.run(["profiles", "--json", "--gpu", slug, *loaded])[0],
                          f"profiles --gpu {slug}")
            self.validate("enumerate", self.run(["enumerate", "--json", "--gpu", slug, *loaded])[0],
                          f"enumerate --gpu {slug}")
            full = max(doc["profiles"], key=lambda p: (p["compute_slices"], p["size"]))
            for req, codes in (([full["name"]], (0,)), ([f"2x{full['name']}"], (1,))):
                args = [*loaded, "pack", "--json", "--gpu", slug, *req]
                text, rc = self.run(args, codes=codes)
                self.validate("pack", text, " ".join(args))
            args = ["fit", "--json", "--gpu", slug, "--memory", "1Gi", *loaded]
            self.validate("fit", self.run(args)[0], " ".join(args))
        ex = ["--gpu-file", example]
        doc = self.validate("gpus", self.run([*ex, "gpus", "--json"])[0], "gpus --gpu-file")
        if doc is not None and (doc["gpus"][-1]["source"], doc["gpus"][-1]["file"]) != ("file", example):
            self.fail("gpus --gpu-file", "the loaded model is not last with source file")
        self.validate("profiles", self.run([*ex, "profiles", "--json"])[0], "profiles --gpu-file")
        self.validate("pack", self.run([*ex, "pack", "--json", "2x1g.11gb", "2g.22gb"])[0],
                      "pack inferring a loaded model")
        # Broken model files: the schema and migplan both refuse them.
        broken = [
            (lambda d: d.update(unts=4), "an unknown key"),
            (lambda d: d.pop("units"), "no units"),
            (lambda d: d.update(units=17), "17 units"),
            (lambda d: d.update(schema_version=2), "schema_version 2"),
            (lambda d: d.update(slug="Not A Slug"), "a slug with spaces"),
            (lambda d: d["profiles"][0].update(starts=[0, 1, 1]), "a start listed twice"),
            (lambda d: d["profiles"][0].update(name="MIG 1g.11gb"), "a name with MIG"),
            (lambda d: d["profiles"][0].update(memory_gib="10.75"), "memory as a string"),
            (lambda d: d["profiles"][0]["engines"].update(nvdec=1), "an unknown engine"),
            (lambda d: d["profiles"][0].update(inferred=["sm"]), "an unknown inferred field"),
            (lambda d: d["pci_ids"][0].update(id="0x12341234"), "a PCI ID of another vendor"),
            (lambda d: d["profiles"][0].update(min_driver=""), "an empty min_driver"),
            (lambda d: d.update(profiles=[]), "no profiles"),
        ]
        for change, what in broken:
            doc = copy.deepcopy(self.example_model)
            change(doc)
            self.expect_invalid("model", doc, what)
            path = os.path.join(self.tmp, "broken.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            self.run(["gpus", "--gpu-file", path], codes=(2,))

    def expect_invalid_with(self, validator, doc, what):
        self.counts["rejected"] = self.counts.get("rejected", 0) + 1
        if validator.is_valid(doc):
            self.fail(f"negative test ({what})", "accepted")

    # -- negative tests --------------------------------------------------------

    def negative(self):
        """Broken documents must fail, so a schema that accepts anything is caught."""
        def doc(args, codes=(0,)):
            return json.loads(self.run(args, codes=codes)[0])

        fits = doc(["pack", "--json", "--gpu", "a100-40gb", "4g.20gb", "2g.10gb", "1g.5gb"])
        split = doc(["pack", "--json", "--gpu", "a100-40gb", "3g.20gb[2c,1c]"])
        ci_nofit = doc(["pack", "--json", "--gpu", "a100-40gb", "4g.20gb[3c]"], (1,))
        ci_rows = doc(["profiles", "--json", "--ci", "--gpu", "a100-40gb"])
        cis = lambda d: layout(d)["instances"][0]["compute_instances"]
        nofit = doc(["pack", "--json", "--gpu", "h100-80gb", "3x3g.40gb"], (1,))
        chk = doc(["check", "--format", "json", "examples/invalid-geometry.yaml"], (1,))
        gpus = doc(["gpus", "--json"])
        fit = doc(["fit", "--json", "--gpu", "a100-40gb", "--memory", "4Gi"])
        nvml = doc(["pack", "--emit", "nvml", "--gpu", "a100-40gb", "4g.20gb", "2g.10gb"])
        geo = {"version": 1, "gpus": [{"model": "a100-40gb", "instances": ["7g.40gb"]}]}
        self.validate("geometry", json.dumps(geo), "a minimal geometry file")
        layout = lambda d: d["layouts"][0]
        diag = lambda d: d["files"][0]["diagnostics"][0]
        entry = lambda d: d["gpus"][0]
        # (schema, a valid document, a change that breaks it, what it breaks)
        cases = [
            ("pack", fits, lambda d: d.pop("feasible"), "missing feasible"),
            ("pack", fits, lambda d: d.update(layout_count="1"), "layout_count a string"),
            ("pack", fits, lambda d: d.update(schema_version=2), "schema_version 2"),
            ("pack", fits, lambda d: d.update(configmap={}), "an undocumented field"),
            ("pack", fits, lambda d: d.update(feasible=False), "feasible false with layouts"),
            ("pack", nofit, lambda d: d["reason"].update(code="too_big"), "an unknown reason code"),
            ("pack", fits, lambda d: layout(d)["stranded"].update(memory_gib="4.91"),
             "memory_gib a string"),
            ("pack", fits, lambda d: layout(d)["instances"][0].update(start=1.5),
             "a fractional start"),
            ("pack", fits, lambda d: d["gpu"].pop("name"), "gpu without name"),
            ("pack", split, lambda d: cis(d)[0].update(start=-1), "a CI at a negative slice"),
            ("pack", split, lambda d: cis(d)[0].update(profile="1c.3g"), "a malformed CI name"),
            ("pack", split, lambda d: cis(d)[0].pop("profile_id"), "a CI without profile_id"),
            ("pack", split, lambda d: layout(d)["instances"][0].update(compute_instances=[]),
             "an instance with an empty compute_instances"),
            ("pack", split, lambda d: d.pop("request_compute_instances"),
             "no request_compute_instances"),
            ("pack", ci_nofit, lambda d: d["reason"].update(code="ci_unknown"),
             "an unknown CI reason code"),
            ("profiles", ci_rows, lambda d: d["gpus"][0]["profiles"][0]["ci_profiles"][0].update(
                inferred=["memory"]), "a CI field that cannot be inferred"),
            ("profiles", ci_rows, lambda d: d["gpus"][0]["profiles"][0].update(ci_profiles=[]),
             "an empty ci_profiles list (unknown is null)"),
            ("pack-batch-line", fits, lambda d: None, "a batch answer without line"),
            ("pack-batch-line", fits, lambda d: d.update(line=0), "line 0"),
            ("pack-batch-line", {}, lambda d: d.update(
                schema_version=1, line=3, error={"code": "oops", "message": "x"}),
             "an unknown error code"),
            ("error", {}, lambda d: d.update(
                schema_version=1, error={"code": "ambiguous_gpu", "message": "x"}),
             "ambiguous_gpu without candidates"),
            ("error", {}, lambda d: d.update(schema_version=1, error={"code": "bad_input"}),
             "an error without message"),
            ("check", chk, lambda d: diag(d).update(severity="fatal"), "an unknown severity"),
            ("check", chk, lambda d: diag(d).update(entry="0"), "entry a string"),
            ("check", chk, lambda d: d["summary"].pop("exit_code"), "summary without exit_code"),
            ("check", chk, lambda d: d["files"][0]["geometries"][0].update(status="ok"),
             "an unknown geometry status"),
            ("gpus", gpus, lambda d: entry(d).update(coverage="most"), "an unknown coverage"),
            ("gpus", gpus, lambda d: entry(d).update(units="8"), "units a string"),
            ("gpus", gpus, lambda d: entry(d).update(min_driver="450"), "a branch without R"),
            ("gpus", gpus, lambda d: entry(d).update(min_driver_version="R450"),
             "a version that is a branch"),
            ("gpus", gpus, lambda d: entry(d).pop("min_driver_version"), "no min_driver_version"),
            ("fit", fit, lambda d: d.update(largest="7g.40gb"), "fits with largest"),
            ("fit", fit, lambda d: d.pop("layout"), "fits without layout"),
            ("emit-nvml", nvml, lambda d: d.pop("create"), "no create"),
            ("emit-nvml", nvml, lambda d: d["create"][0].update(start="0"), "start a string"),
            ("emit-nvml", nvml, lambda d: d["create"][0].update(placement={}), "an undocumented field"),
            ("emit-nvml", nvml, lambda d: d.update(index=-1), "a negative index"),
            ("geometry", geo, lambda d: d.update(version="1"), "version the string 1"),
            ("geometry", geo, lambda d: entry(d).pop("instances"), "no instances"),
            ("geometry", geo, lambda d: entry(d).update(indx=0), "a misspelt key"),
            ("geometry", geo, lambda d: d.update(gpus=[]), "an empty gpus list"),
            ("geometry", geo, lambda d: entry(d).update(index=-1), "a negative index"),
        ]
        for kind, valid, change, what in cases:
            broken = copy.deepcopy(valid)
            change(broken)
            self.expect_invalid(kind, broken, what)

# Keywords that evaluate properties of the same instance (in-place applicators).
IN_PLACE = {"allOf", "anyOf", "oneOf", "if", "then", "else", "$ref", "$dynamicRef",
            "dependentSchemas"}


def needless_unevaluated(node, path="#"):
    """JSON pointers of the objects with unevaluatedProperties but no in-place applicator."""
    if isinstance(node, dict):
        if "unevaluatedProperties" in node and not IN_PLACE & node.keys():
            yield path
        for k, v in node.items():
            if k not in ("enum", "const", "examples", "default"):
                yield from needless_unevaluated(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from needless_unevaluated(v, f"{path}/{i}")


def refs_of(node):
    if isinstance(node, dict):
        for k, v in node.items():
            if k == "$ref" and isinstance(v, str):
                yield v
            else:
                yield from refs_of(v)
    elif isinstance(node, list):
        for v in node:
            yield from refs_of(v)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    c = Checker(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]))
    c.reason_codes = set()
    c.pack_answers = {}
    c.seen = set()
    c.check_schemas()
    c.gpus()
    c.profiles()
    c.enumerate()
    c.fit()
    c.simulate()
    c.place()
    c.pack()
    c.pack_current()
    c.pack_errors()
    c.file_errors()
    c.emit_nvml()
    c.batch()
    c.check_files()
    c.geometry()
    c.plan()
    c.plan_inputs()
    c.negative()
    c.model_files()
    # The corpus is broad enough to reach every value of every enum.
    # Except ci_placement: no catalog GPU instance has a set of CIs that passes its caps and
    # slices yet cannot be placed (doc/compute-instances.md); the core's tests reach it.
    missing = (set(c.schemas["common"]["$defs"]["reason_code"]["enum"]) - c.reason_codes
               - {"ci_placement"})
    if missing:
        c.fail("pack corpus", f"no request gave the reason codes {sorted(missing)}")
    d = c.schemas["check"]["$defs"]
    wanted = {("file status", v) for v in d["file"]["properties"]["status"]["enum"]}
    wanted |= {("format", v) for v in d["file"]["properties"]["format"]["enum"]}
    wanted |= {("severity", v) for v in d["diagnostic"]["properties"]["severity"]["enum"]}
    wanted |= {("geometry status", v) for v in d["geometry"]["properties"]["status"]["enum"]}
    wanted |= {("model status", v) for v in d["model"]["properties"]["status"]["enum"]}
    if wanted - c.seen:
        c.fail("check corpus", f"no output had {sorted(wanted - c.seen, key=str)}")
    for line in c.failures[:40]:
        print("FAIL " + line)
    if len(c.failures) > 40:
        print(f"... and {len(c.failures) - 40} more failures")
    total = sum(n for k, n in c.counts.items() if k != "rejected")
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(c.counts.items()) if k != "rejected")
    print(f"validated {total} documents ({kinds}); {c.counts.get('rejected', 0)} broken documents "
          f"rejected; {len(c.failures)} failures")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
