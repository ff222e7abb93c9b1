#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the catalog and driver_observations from data/mig-profiles.json + models.json.

mig-profiles.json is the evidence (every value cites its source); models.json holds the
curated per-model facts that file does not hold as data (which of its GPUs are built-in
models and in what order, the names nvidia-smi prints, former profile names, profile names
that circulate in third-party tools though no driver printed them, the capture
files each table was transcribed from or is checked against, the GPUs left out and why;
data/SOURCES.md describes every field). include/migplan/detail/catalog_data.hpp is a pure
transcription of the two. Nothing is invented: a value the JSON leaves null stays an empty
optional.

include/migplan/detail/driver_observations.inc, the body of driver_observations in
include/migplan/driver_order.hpp, is read from the captures models.json's
driver_observations names (each entry gives only the GPU, the files, a note and whether the
driver model reproduces it): the driver version from "# driver:", the creation order from
nvidia-smi's "Successfully created GPU instance ID N ... (ID P)" and "Unable to create"
lines, each start from the -lgi row of instance N. Every profile those lines name must be
the JSON's profile of that ID on the GPU, and every -lgi row one of its placements, on
units no other row holds.

Usage:
    python3 data/gen_catalog.py            # (re)write both files
    python3 data/gen_catalog.py --check    # exit 1 if a checked-in file is stale

Either exits 2, naming the file, entry and problem, when the data is malformed: models.json
is validated strictly (unknown or missing keys, wrong types, duplicate or unknown slugs,
capture files that do not exist, GPUs of mig-profiles.json it does not account for).

The output is deterministic and already laid out the way clang-format (repo
.clang-format) lays it out; when clang-format is on PATH it is run on the
output as well, so either way the header passes `clang-format --dry-run --Werror`.
--check compares both files modulo layout (tokens, string literals and comment
words; see same_modulo_layout), so it gives the same answer with any clang-format
version or none: the layout itself is the clang-format step's to check.
Standard library only.
"""

from __future__ import annotations

import argparse
import dataclasses
import decimal
import difflib
import hashlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
REPO_ROOT = DATA_DIR.parent
JSON_PATH = DATA_DIR / "mig-profiles.json"
MODELS_PATH = DATA_DIR / "models.json"
CAPTURES_DIR = DATA_DIR / "captures"
OUT_PATH = REPO_ROOT / "include" / "migplan" / "detail" / "catalog_data.hpp"
OUT_DISPLAY = "include/migplan/detail/catalog_data.hpp"
OBS_PATH = REPO_ROOT / "include" / "migplan" / "detail" / "driver_observations.inc"
OBS_DISPLAY = "include/migplan/detail/driver_observations.inc"
JSON_DISPLAY = "data/mig-profiles.json"
MODELS_DISPLAY = "data/models.json"

COLUMN_LIMIT = 100  # .clang-format ColumnLimit
INDENT = 4  # Google style: continuation / braced-list indent

# What a model without a table-source capture names as its evidence.
NO_CAPTURE_EVIDENCE = "none captured: data/mig-profiles.json (names and counts from NVIDIA configs)"

# JSON inferred_fields -> gpu.hpp `field` flags. Anything else is an error.
INFERRED_FIELDS = {
    "id": "field::id",
    "sm_count": "field::sm_count",
    "placements": "field::placements",
    "ce": "field::ce",
    "max_instances": "field::max_instances",
}

# JSON ci_profiles[].inferred_fields -> gpu.hpp `field` flags. Anything else is an error.
CI_INFERRED_FIELDS = {
    "id": "field::id",
    "sm_count": "field::sm_count",
    "max_instances": "field::max_instances",
    "default": "field::default_ci",
}

# JSON engine keys in gpu.hpp `engine` order (CE, DEC, ENC, JPG, OFA).
ENGINE_KEYS = ["ce", "nvdec", "nvenc", "nvjpg", "ofa"]

# Coverage text prefix -> gpu.hpp `coverage`.
COVERAGE_PREFIXES = [("full", "coverage::full"), ("partial", "coverage::partial"),
                     ("config-only", "coverage::config_only")]


class DataError(Exception):
    pass


def fail(msg: str) -> None:
    raise DataError(msg)


# ---------------------------------------------------------------------------
# Reading and validating the data files
# ---------------------------------------------------------------------------


def load_json(path: Path, display: str) -> object:
    """Parses a JSON file; a syntax error or a repeated key names the file, line and column."""

    def no_repeats(pairs: list[tuple[str, object]]) -> dict:
        obj: dict = {}
        for key, value in pairs:
            if key in obj:
                fail(f"{display}: key {key!r} appears twice in one object")
            obj[key] = value
        return obj

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        fail(f"{display}: cannot read: {e.strerror}")
    try:
        return json.loads(text, object_pairs_hook=no_repeats)
    except json.JSONDecodeError as e:
        line = text.splitlines()[e.lineno - 1] if e.lineno <= len(text.splitlines()) else ""
        fail(f"{display}:{e.lineno}:{e.colno}: {e.msg}\n    {line}\n    {' ' * (e.colno - 1)}^")
    return None


def did_you_mean(word: str, choices: list[str]) -> str:
    close = difflib.get_close_matches(word, choices, n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


class Reader:
    """One JSON object of models.json, checked to hold only known keys and all required ones."""

    def __init__(self, obj: object, where: str, required: list[str], optional: list[str]):
        if not isinstance(obj, dict):
            fail(f"{where}: expected an object, found {type(obj).__name__}")
        known = required + optional
        for key in obj:
            if key not in known:
                fail(f"{where}: unknown key {key!r}{did_you_mean(key, known)} "
                     f"(known: {', '.join(known)})")
        for key in required:
            if key not in obj:
                fail(f"{where}: missing key {key!r}")
        self.obj, self.where = obj, where

    def text(self, key: str) -> str:
        value = self.obj.get(key)
        if not isinstance(value, str) or not value.strip():
            fail(f"{self.where}: {key} must be a non-empty string")
        return value

    def flag(self, key: str) -> bool:
        value = self.obj[key]
        if not isinstance(value, bool):
            fail(f"{self.where}: {key} must be true or false")
        return value

    def items(self, key: str, required: list[str], optional: list[str]) -> list[Reader]:
        """The objects of list `key`, each named `key[i]`, with its slug when it has one."""
        value = self.obj.get(key, [])
        if not isinstance(value, list):
            fail(f"{self.where}: {key} must be a list")
        out = []
        for i, v in enumerate(value):
            slug = v.get("slug") if isinstance(v, dict) else None
            label = f" ({slug})" if isinstance(slug, str) else ""
            out.append(Reader(v, f"{self.where}: {key}[{i}]{label}", required, optional))
        return out


# -lgip columns a capture may print differently from the catalog (differences[].column).
CAPTURE_COLUMNS = ["id", "total", "memory", "sm", "dec", "enc", "ce", "jpg", "ofa"]


@dataclasses.dataclass
class Model:
    """One models.json entry, validated."""
    slug: str
    smi_names: list[tuple[str, str]]  # (name, source)
    former_names: dict[str, list[tuple[str, str]]]  # profile -> [(former name, note)]
    # profile -> [(name third-party tools use, note)]; never printed by nvidia-smi
    circulating_names: dict[str, list[tuple[str, str]]]
    evidence: list[str]  # capture file names the table was transcribed from, in order
    min_driver: str = ""  # first driver branch with MIG on the model ("R450"), "" if unknown
    min_driver_version: str = ""  # its first version ("450.80.02"), "" if unknown


# Top-level keys of models.json.
TOP_REQUIRED = ["models", "skipped", "driver_observations"]
TOP_OPTIONAL = ["about", "shorthands"]


def read_models(doc: object, gpus: dict[str, dict]) -> list[Model]:
    """Validates models.json against itself, data/captures and mig-profiles.json."""
    top = Reader(doc, MODELS_DISPLAY, TOP_REQUIRED, TOP_OPTIONAL)
    if "about" in doc:
        top.text("about")
    # Abbreviations the `source` fields use, spelt out once.
    shorthands = doc.get("shorthands", {})
    if not isinstance(shorthands, dict) or not all(
            isinstance(v, str) and v.strip() for v in shorthands.values()):
        fail(f"{MODELS_DISPLAY}: shorthands must map each abbreviation to a non-empty string")

    slugs = list(gpus)
    models: list[Model] = []
    seen: dict[str, str] = {}  # slug -> where it was listed
    capture_owner: dict[str, str] = {}  # capture file -> slug
    smi_owner: dict[str, str] = {}  # nvidia-smi name without "NVIDIA " -> slug

    def claim_slug(r: Reader) -> str:
        slug = r.text("slug")
        if slug not in gpus:
            fail(f"{r.where}: slug {slug!r} is not a GPU id in {JSON_DISPLAY}"
                 f"{did_you_mean(slug, slugs)}")
        if slug in seen:
            fail(f"{r.where}: slug {slug!r} is listed twice (first in {seen[slug]})")
        seen[slug] = r.where
        return slug

    entries = top.items("models", ["slug", "smi_names", "former_names", "captures"],
                        ["smi_names_note", "circulating_names", "driver_floor",
                         "driver_floor_note"])
    # Profile names of every GPU in the JSON: a circulating name must be none of them.
    every_profile = {p["name"] for g in gpus.values() for p in g.get("gi_profiles") or []}
    circulating_owner: dict[str, str] = {}  # circulating name -> slug
    if not entries:
        fail(f"{MODELS_DISPLAY}: models is empty")
    for m in entries:
        slug = claim_slug(m)
        g = gpus[slug]

        names: list[tuple[str, str]] = []
        for n in m.items("smi_names", ["name", "source"], ["note"]):
            name, source = n.text("name"), n.text("source")
            if "note" in n.obj:
                n.text("note")
            key = re.sub(r"^nvidia ", "", name.lower())
            # Ignoring case, as lookups and model files do; with and without "NVIDIA " are
            # two names (drivers print both).
            if any(name.lower() == old.lower() for old, _ in names):
                fail(f"{n.where}: nvidia-smi name {name!r} is listed twice")
            if smi_owner.setdefault(key, slug) != slug:
                fail(f"{n.where}: nvidia-smi name {name!r} already belongs to {smi_owner[key]}")
            names.append((name, source))
        # An empty list must say why: which source was looked at and does not print the name.
        if names and "smi_names_note" in m.obj:
            fail(f"{m.where}: smi_names_note explains an empty smi_names; this one is not empty")
        if not names and "smi_names_note" not in m.obj:
            fail(f"{m.where}: smi_names is empty; say why in smi_names_note")
        if not names:
            m.text("smi_names_note")

        profiles = {p["name"] for p in g["gi_profiles"]}
        former: dict[str, list[tuple[str, str]]] = {}
        for f in m.items("former_names", ["profile", "name", "note", "source"], []):
            profile, name, note = f.text("profile"), f.text("name"), f.text("note")
            f.text("source")
            if profile not in profiles:
                fail(f"{f.where}: profile {profile!r} is not a profile of {slug} in "
                     f"{JSON_DISPLAY}{did_you_mean(profile, sorted(profiles))}")
            if name in profiles:
                fail(f"{f.where}: former name {name!r} is a current profile name of {slug}")
            former.setdefault(profile, []).append((name, note))

        # Names no driver printed but tools use (HAMi's "7g.79gb"): a hint, never an alias.
        circulating: dict[str, list[tuple[str, str]]] = {}
        for c in m.items("circulating_names", ["profile", "name", "note", "source"], []):
            profile, name, note = c.text("profile"), c.text("name"), c.text("note")
            c.text("source")
            if profile not in profiles:
                fail(f"{c.where}: profile {profile!r} is not a profile of {slug} in "
                     f"{JSON_DISPLAY}{did_you_mean(profile, sorted(profiles))}")
            if name in every_profile:
                fail(f"{c.where}: circulating name {name!r} is a profile name in {JSON_DISPLAY}")
            if any(name == old for fs in former.values() for old, _ in fs):
                fail(f"{c.where}: circulating name {name!r} is a former name of {slug}")
            if circulating_owner.setdefault(name, slug) != slug or any(
                    name == n for ns in circulating.values() for n, _ in ns):
                fail(f"{c.where}: circulating name {name!r} is listed twice (first by "
                     f"{circulating_owner[name]})")
            circulating.setdefault(profile, []).append((name, note))

        evidence: list[str] = []
        for c in m.items("captures", ["file", "table_source"], ["note", "differences", "absent"]):
            file = c.text("file")
            if "/" in file or not (CAPTURES_DIR / file).is_file():
                fail(f"{c.where}: capture file data/captures/{file} does not exist"
                     f"{did_you_mean(file, sorted(p.name for p in CAPTURES_DIR.iterdir()))}")
            if file in capture_owner:
                fail(f"{c.where}: capture {file} is already listed by {capture_owner[file]}")
            capture_owner[file] = slug
            if c.flag("table_source"):
                evidence.append(file)
            elif "-lgip" not in file:
                fail(f"{c.where}: {file} is neither a table source nor an -lgip/-lgipp capture "
                     "the tests could check")
            if "note" in c.obj:
                c.text("note")
            for d in c.items("differences", ["profile", "column", "printed", "why"], []):
                row, column, printed = d.text("profile"), d.text("column"), d.text("printed")
                d.text("why")
                if "-lgipp" in file or "-lgip" not in file:
                    fail(f"{d.where}: differences are checked on -lgip captures only")
                # The row as the capture prints it: a current or a former name.
                names_here = sorted(profiles | {n for fs in former.values() for n, _ in fs})
                if row not in names_here:
                    fail(f"{d.where}: profile {row!r} is neither a profile nor a former name of "
                         f"{slug}{did_you_mean(row, names_here)}")
                if column not in CAPTURE_COLUMNS:
                    fail(f"{d.where}: unknown column {column!r}"
                         f"{did_you_mean(column, CAPTURE_COLUMNS)} "
                         f"(known: {', '.join(CAPTURE_COLUMNS)})")
                pattern = r"\d+\.\d{1,2}|\d+" if column == "memory" else r"\d+"
                if not re.fullmatch(pattern, printed):
                    fail(f"{d.where}: printed {printed!r} is not a value as nvidia-smi prints "
                         f"the {column} column")
            for a in c.items("absent", ["profile", "why"], []):
                row = a.text("profile")
                a.text("why")
                if row not in profiles:
                    fail(f"{a.where}: profile {row!r} is not a profile of {slug}"
                         f"{did_you_mean(row, sorted(profiles))}")
        branch, version = read_driver_floor(m, g)
        models.append(Model(slug, names, former, circulating, evidence, branch, version))

    for s in top.items("skipped", ["slug", "reason"], []):
        claim_slug(s)
        s.text("reason")

    missing = [s for s in slugs if s not in seen]
    if missing:
        fail(f"{JSON_DISPLAY} has GPUs {MODELS_DISPLAY} does not account for: {missing}; "
             "list each under models (to build it) or skipped (with the reason)")
    return models


def read_driver_floor(m: Reader, g: dict) -> tuple[str, str]:
    """The model's first driver (branch, version), or ("", "") with the note that says why
    it is unknown. Exactly one of driver_floor and driver_floor_note is given."""
    if ("driver_floor" in m.obj) == ("driver_floor_note" in m.obj):
        fail(f"{m.where}: give driver_floor (branch, version, source) or, when no source gives "
             "one, driver_floor_note saying why; exactly one of the two")
    if "driver_floor_note" in m.obj:
        m.text("driver_floor_note")
        return "", ""
    f = Reader(m.obj["driver_floor"], f"{m.where}: driver_floor", ["branch", "version", "source"],
               ["note"])
    branch, version = f.text("branch"), f.text("version")
    f.text("source")
    if "note" in f.obj:
        f.text("note")
    if not re.fullmatch(r"R\d+", branch):
        fail(f"{f.where}: branch {branch!r} is not a driver branch like R525")
    if not re.fullmatch(r"\d+(\.\d+){1,2}", version) or version.split(".")[0] != branch[1:]:
        fail(f"{f.where}: version {version!r} is not a driver version of {branch} "
             f"(like {branch[1:]}.85.12)")
    # A profile cannot come before MIG itself on the model.
    for p in g.get("gi_profiles") or []:
        own = min_driver_of(p.get("min_driver"))
        if own and int(own[1:]) < int(branch[1:]):
            fail(f"{f.where}: profile {p.get('name')} has min_driver {own}, before the model's "
                 f"{branch}")
    return branch, version


# driver_observation::most_steps in include/migplan/driver_order.hpp.
OBSERVATION_STEPS = 8

# nvidia-smi's lines for one GPU instance created (-cgi) or refused, and an -lgi table row.
CREATED_RE = re.compile(r"Successfully created GPU instance ID +(\d+) on GPU +\d+ using profile "
                        r"MIG (\S+) \(ID +(\d+)\)")
REFUSED_RE = re.compile(r"Unable to create a GPU instance on GPU +\d+ using profile (\d+):")
LGI_ROW_RE = re.compile(r"\| +\d+ +MIG (\S+) +(\d+) +(\d+) +(\d+):(\d+) +\|")


@dataclasses.dataclass
class Observation:
    """One driver_observations entry of models.json with what its captures show."""
    gpu: str
    driver: str  # "# driver:" of the captures, "" when none gives it
    profile_ids: list[int]  # in creation order
    starts: list[str]  # each a number, or driver_observation::failed / ::unknown
    reproduced: bool
    source: str  # "data/captures/a.txt, b.txt"
    note: str


def read_observation(r: Reader, gpus: dict[str, dict], built: set[str]) -> Observation:
    """Reads one observation's captures: the creation order from the "Successfully created
    GPU instance ID N ... (ID P)" and "Unable to create" lines, each start from the -lgi row of
    instance N. Every profile a line names must be the JSON's profile of that ID on `gpu`."""
    gpu = r.text("gpu")
    if gpu not in built:
        fail(f"{r.where}: gpu {gpu!r} is not a built-in model in {MODELS_DISPLAY}"
             f"{did_you_mean(gpu, sorted(built))}")
    files = r.obj.get("captures")
    if not isinstance(files, list) or not files or not all(isinstance(f, str) for f in files):
        fail(f"{r.where}: captures must be a non-empty list of file names in data/captures")
    note = r.text("note")
    reproduced = r.flag("reproduced")
    by_id = {p["id"]: p for p in gpus[gpu]["gi_profiles"] if p.get("id") is not None}

    def profile_of(pid: int, name: str | None, where: str) -> dict:
        p = by_id.get(pid)
        if p is None:
            fail(f"{where}: {gpu} has no profile with ID {pid} in {JSON_DISPLAY}")
        if name is not None and p["name"] != name:
            fail(f"{where}: profile ID {pid} is {p['name']} on {gpu} in {JSON_DISPLAY}, "
                 f"the capture says {name}")
        return p

    drivers: set[str] = set()
    steps: list[tuple[int, int | None]] = []  # (profile ID, GPU instance ID or None: refused)
    lgi: dict[int, tuple[int, int]] = {}  # GPU instance ID -> (profile ID, start)
    units: dict[int, tuple[int, int]] = {}  # GPU instance ID -> (start, size)
    for f in files:
        path = CAPTURES_DIR / f
        if "/" in f or not path.is_file():
            fail(f"{r.where}: capture file data/captures/{f} does not exist"
                 f"{did_you_mean(f, sorted(p.name for p in CAPTURES_DIR.iterdir()))}")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"data/captures/{f}:{n}"
            if line.startswith("# driver: "):
                drivers.add(line[len("# driver: "):].strip())
            elif m := CREATED_RE.match(line):
                pid = int(m[3])
                profile_of(pid, m[2], where)
                steps.append((pid, int(m[1])))
            elif m := REFUSED_RE.match(line):
                pid = int(m[1])
                profile_of(pid, None, where)
                steps.append((pid, None))
            elif m := LGI_ROW_RE.fullmatch(line.strip()):
                pid, gi, start, size = int(m[2]), int(m[3]), int(m[4]), int(m[5])
                p = profile_of(pid, m[1], where)
                if size != p["placements"]["size"] or start not in p["placements"]["starts"]:
                    fail(f"{where}: {p['name']} at {start}:{size} is not one of its placements "
                         f"in {JSON_DISPLAY}")
                if gi in lgi:
                    fail(f"{where}: GPU instance {gi} is listed twice")
                if any(start < s + n and s < start + size for s, n in units.values()):
                    fail(f"{where}: {p['name']} at {start}:{size} overlaps another instance")
                lgi[gi] = (pid, start)
                units[gi] = (start, size)
    if len(drivers) > 1:
        fail(f"{r.where}: the captures name different drivers: {sorted(drivers)}")
    if not steps:
        fail(f"{r.where}: the captures create no GPU instance")
    if len(steps) > OBSERVATION_STEPS:
        fail(f"{r.where}: {len(steps)} instances; driver_observation holds {OBSERVATION_STEPS}")
    starts: list[str] = []
    for pid, gi in steps:
        if gi is None:
            starts.append("driver_observation::failed")
        elif not lgi:
            starts.append("driver_observation::unknown")
        elif gi not in lgi or lgi[gi][0] != pid:
            fail(f"{r.where}: the -lgi capture has no instance {gi} of profile ID {pid}")
        else:
            starts.append(str(lgi[gi][1]))
    created = {gi for _, gi in steps if gi is not None}
    if lgi and set(lgi) != created:
        fail(f"{r.where}: the -lgi capture lists instances {sorted(set(lgi) - created)} "
             "that the captures do not create")
    return Observation(gpu, drivers.pop() if drivers else "", [pid for pid, _ in steps], starts,
                       reproduced, "data/captures/" + ", ".join(files), note)


def read_observations(doc: object, gpus: dict[str, dict], models: list[Model]) -> list[Observation]:
    """models.json's driver_observations, in order, each read from its captures."""
    top = Reader(doc, MODELS_DISPLAY, TOP_REQUIRED, TOP_OPTIONAL)
    built = {m.slug for m in models}
    out = [read_observation(r, gpus, built)
           for r in top.items("driver_observations", ["gpu", "captures", "note", "reproduced"],
                              [])]
    if not out:
        fail(f"{MODELS_DISPLAY}: driver_observations is empty")
    return out


# ---------------------------------------------------------------------------
# Value conversion
# ---------------------------------------------------------------------------


def ident(text: str) -> str:
    """A C++ identifier fragment from a slug or profile name."""
    return re.sub(r"[^0-9a-z]+", "_", text.lower()).strip("_")


def gib_x100(printed: str | None, where: str) -> int | None:
    """'4.75' -> 475, exactly (decimal, not float)."""
    if printed is None:
        return None
    try:
        value = decimal.Decimal(printed) * 100
    except decimal.InvalidOperation:
        fail(f"{where}: memory_gib_printed {printed!r} is not a number")
    if value != value.to_integral_value():
        fail(f"{where}: memory_gib_printed {printed!r} has more than two decimals")
    return int(value)


def compute_slices_of(name: str, where: str) -> int:
    m = re.match(r"^(\d+)g\.", name)
    if not m:
        fail(f"{where}: profile name {name!r} does not start with '<n>g.'")
    return int(m.group(1))


def min_driver_of(text: str | None) -> str:
    """'R470 (https://...)' -> 'R470'."""
    if not text:
        return ""
    token = text.split()[0]
    if not re.fullmatch(r"R\d+", token):
        fail(f"min_driver {text!r} does not start with a driver branch like R525")
    return token


def inferred_expr(fields: list[str], where: str, known: dict[str, str] = INFERRED_FIELDS) -> str:
    flags = []
    for f in fields:
        if f not in known:
            fail(f"{where}: unknown inferred field {f!r} (known: {', '.join(known)})")
        flags.append(known[f])
    return " | ".join(flags) if flags else "field::none"


def ci_slices_of(ci_name: str, gi_name: str, gi_slices: int, where: str) -> int:
    """'1c.3g.20gb' in GI '3g.20gb' -> 1; the full CI is named as its GI ('3g.20gb') -> 3."""
    if ci_name == gi_name:
        return gi_slices
    m = re.fullmatch(r"(\d+)c\.(.+)", ci_name)
    if not m or m.group(2) != gi_name:
        fail(f"{where}: CI profile name {ci_name!r} is neither {gi_name!r} nor "
             f"'<n>c.{gi_name}'")
    c = int(m.group(1))
    if not 1 <= c < gi_slices:
        fail(f"{where}: CI profile {ci_name!r} has {c} compute slices; a {gi_name} GI has "
             f"{gi_slices}, and only the full CI, named {gi_name!r}, takes them all")
    return c


def emit_ci_profiles(p: dict, slug: str, where: str) -> tuple[str, list[str]]:
    """The ci_profile array of one GI profile: (its identifier, its lines); ("", []) when the
    JSON lists none, which means unknown."""
    rows = p.get("ci_profiles")
    if rows is None or rows == []:
        return "", []
    if not isinstance(rows, list):
        fail(f"{where}: ci_profiles must be a list")
    gi_name = p["name"]
    gi_slices = compute_slices_of(gi_name, where)
    known = ["name", "id", "sm_count", "max_instances", "default", "inferred", "inferred_fields",
             "source", "notes"]
    names, ids, defaults = set(), set(), 0
    arr = f"{ident(slug)}_{ident(gi_name)}_ci_profiles"
    out = [f"inline constexpr ci_profile {arr}[] = {{"]
    i2, i3, i4 = 2 * INDENT, 3 * INDENT, 4 * INDENT
    for ci in rows:
        cw = f"{where}/ci_profiles/{ci.get('name') if isinstance(ci, dict) else ci!r}"
        if not isinstance(ci, dict):
            fail(f"{cw}: expected an object")
        for key in ci:
            if key not in known:
                fail(f"{cw}: unknown key {key!r}{did_you_mean(key, known)}")
        for key in ["name", "id", "max_instances", "default", "inferred", "inferred_fields",
                    "source"]:
            if key not in ci:
                fail(f"{cw}: missing key {key!r}")
        name = ci["name"]
        c = ci_slices_of(name, gi_name, gi_slices, cw)
        if name in names or ci["id"] in ids:
            fail(f"{cw}: name or id repeats within {gi_name}")
        names.add(name)
        ids.add(ci["id"])
        if not isinstance(ci["id"], int) or isinstance(ci["id"], bool) or ci["id"] < 0:
            fail(f"{cw}: id {ci['id']!r} is not a CI profile ID")
        cap = ci["max_instances"]
        if not isinstance(cap, int) or isinstance(cap, bool) or not 1 <= cap * c <= gi_slices:
            fail(f"{cw}: max_instances {cap!r} CIs of {c} slices do not fit in {gi_slices}")
        sm = ci.get("sm_count")
        if sm is not None and (not isinstance(sm, int) or isinstance(sm, bool) or sm < 1):
            fail(f"{cw}: sm_count {sm!r} is not a positive integer or null")
        if not isinstance(ci["default"], bool):
            fail(f"{cw}: default must be true or false")
        defaults += ci["default"]
        fields = ci["inferred_fields"]
        if not isinstance(fields, list) or bool(ci["inferred"]) != bool(fields):
            fail(f"{cw}: `inferred` disagrees with `inferred_fields`")
        out.append(" " * INDENT + "{")
        out.extend(string_field(i2, ".name = ", name))
        out.append(f"{' ' * i2}.id = {ci['id']},")
        out.append(f"{' ' * i2}.compute_slices = {c},")
        out.append(f"{' ' * i2}.sm_count = {opt(sm)},")
        out.append(f"{' ' * i2}.max_instances = {cap},")
        out.append(f"{' ' * i2}.is_default = {'true' if ci['default'] else 'false'},")
        out.append(f"{' ' * i2}.prov =")
        out.append(" " * i3 + "{")
        out.extend(string_field(i4, ".source = ", ci["source"] or ""))
        out.append(f"{' ' * i4}.placements_source = \"\",")
        out.append(f"{' ' * i4}.inferred = {inferred_expr(fields, cw, CI_INFERRED_FIELDS)},")
        out.extend(string_field(i4, ".notes = ", ci.get("notes") or ""))
        out.append(" " * i3 + "},")
        out.append(" " * INDENT + "},")
    out.append("};")
    if defaults != 1:
        fail(f"{where}: {defaults} CI profiles are marked default; -C creates exactly one")
    return arr, out


PCI_RE = re.compile(r"^0x([0-9A-Fa-f]{8})(?:\s+\((.*)\))?$")
PCI_INFERRED_RE = re.compile(r"\b(likely|inferred)\b", re.IGNORECASE)


def pci_id_of(text: str, where: str) -> tuple[int, bool]:
    """'0x233110DE (likely; ...)' -> (0x233110DE, True)."""
    m = PCI_RE.match(text)
    if not m:
        fail(f"{where}: PCI ID {text!r} is not '0xXXXXXXXX' with an optional '(remark)'")
    remark = m.group(2) or ""
    return int(m.group(1), 16), bool(PCI_INFERRED_RE.search(remark))


def coverage_of(text: str, where: str) -> str:
    for prefix, value in COVERAGE_PREFIXES:
        if text.startswith(prefix):
            return value
    fail(f"{where}: coverage {text!r} starts with none of full/partial/config-only")
    return ""


def starts_mask(starts: list[int], size: int, units: int, where: str) -> int:
    mask = 0
    for s in starts:
        if s < 0 or s + size > units:
            fail(f"{where}: placement {s}:{size} does not fit in {units} units")
        mask |= 1 << s
    return mask


# ---------------------------------------------------------------------------
# Emission: laid out exactly as clang-format (Google, 100 columns) lays it out, so the output
# is stable with or without clang-format: one designated field per line, trailing commas on
# every multi-line braced list, long strings split at spaces into adjacent literals aligned
# under the first quote.
# ---------------------------------------------------------------------------


def c_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif ord(ch) > 0x7F:
            # Keep the header ASCII; universal character names become UTF-8 in the literal.
            out.append(f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


def split_pieces(text: str, first_width: int, width: int) -> list[str]:
    """Split escaped text into pieces of at most first_width / width characters.

    Breaks after a space where possible (the space stays on the earlier piece, as clang-format
    does), otherwise after the last '/' or other punctuation, never inside an escape.
    """
    pieces = []
    limit = first_width
    while len(text) > limit:
        cut = -1
        for seps in (" ", "/", ",;)&?=-_.:"):
            cut = max(text.rfind(c, 0, limit) for c in seps)
            if cut > 0:
                break
        if cut <= 0:
            cut = limit - 1
        cut += 1
        # Never end a piece inside an escape sequence.
        while cut > 1 and _inside_escape(text, cut):
            cut -= 1
        pieces.append(text[:cut])
        text = text[cut:]
        limit = width
    pieces.append(text)
    return pieces


def _inside_escape(text: str, cut: int) -> bool:
    i = 0
    while i < cut:
        if text[i] == "\\":
            n = {"u": 6, "U": 10, "x": 4}.get(text[i + 1], 2)
            if i + n > cut:
                return i < cut
            i += n
        else:
            i += 1
    return False


def string_field(indent: int, prefix: str, text: str, suffix: str = ",") -> list[str]:
    """`prefix"text"suffix` at `indent`, split into aligned adjacent literals if too long."""
    lead = " " * indent + prefix
    esc = c_escape(text)
    if len(lead) + len(esc) + 2 + len(suffix) <= COLUMN_LIMIT:
        return [f'{lead}"{esc}"{suffix}']
    col = len(lead)
    # Each line: col spaces + '"' + piece + '"' (+ suffix on the last line).
    width = COLUMN_LIMIT - col - 2
    pieces = split_pieces(esc, width, width)
    if len(pieces[-1]) + len(suffix) > width:
        last = pieces.pop()
        pieces.extend(split_pieces(last, width - len(suffix), width - len(suffix)))
    lines = [f'{lead}"{pieces[0]}"']
    for p in pieces[1:]:
        lines.append(" " * col + f'"{p}"')
    lines[-1] += suffix
    return lines


def opt(value: int | None) -> str:
    return "std::nullopt" if value is None else str(value)


def comment_lines(indent: int, text: str) -> list[str]:
    """A `//` comment wrapped to the column limit."""
    words = text.split()
    lines, cur = [], ""
    room = COLUMN_LIMIT - indent - 3
    for w in words:
        if cur and len(cur) + 1 + len(w) > room:
            lines.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    if cur:
        lines.append(cur)
    return [" " * indent + "// " + line for line in lines]


def emit_profile(p: dict, model: Model, units: int) -> tuple[list[str], list[str]]:
    """Returns (former- and circulating-name arrays to emit before the table, profile lines)."""
    slug = model.slug
    where = f"{slug}/{p.get('name')}"
    name = p["name"]
    pl = p.get("placements")
    if pl is None:
        fail(f"{where}: no placements; a planned model needs them")
    size = pl["size"]
    mask = starts_mask(pl["starts"], size, units, where)
    if p.get("max_instances") is None:
        fail(f"{where}: max_instances is null")
    if bool(p.get("inferred")) != bool(p.get("inferred_fields")):
        fail(f"{where}: `inferred` disagrees with `inferred_fields`")
    engines = ", ".join(opt(p.get(k)) for k in ENGINE_KEYS)
    starts_text = "{" + ",".join(str(s) for s in pl["starts"]) + "}:" + str(size)

    pre: list[str] = []
    former = model.former_names.get(name, [])
    former_ident = f"{ident(slug)}_{ident(name)}_former_names"
    if former:
        pre.append(f"inline constexpr former_name {former_ident}[] = {{")
        for old, note in former:
            pre.append(" " * INDENT + "{")
            pre.extend(string_field(2 * INDENT, ".name = ", old))
            pre.extend(string_field(2 * INDENT, ".note = ", note))
            pre.append(" " * INDENT + "},")
        pre.append("};")
    circulating = model.circulating_names.get(name, [])
    circulating_ident = f"{ident(slug)}_{ident(name)}_circulating_names"
    if circulating:
        pre.append(f"inline constexpr circulating_name {circulating_ident}[] = {{")
        for other, note in circulating:
            pre.append(" " * INDENT + "{")
            pre.extend(string_field(2 * INDENT, ".name = ", other))
            pre.extend(string_field(2 * INDENT, ".note = ", note))
            pre.append(" " * INDENT + "},")
        pre.append("};")

    ci_ident, ci_lines = emit_ci_profiles(p, slug, where)
    pre.extend(ci_lines)

    i2, i3, i4 = 2 * INDENT, 3 * INDENT, 4 * INDENT
    out = [" " * INDENT + "{"]
    out.extend(string_field(i2, ".name = ", name))
    out.append(f"{' ' * i2}.id = {p['id']},")
    out.append(f"{' ' * i2}.compute_slices = {compute_slices_of(name, where)},")
    out.append(f"{' ' * i2}.size = {size},")
    out.append(f"{' ' * i2}.starts = {mask:#x},  // -lgipp {starts_text}")
    out.append(f"{' ' * i2}.max_instances = {p['max_instances']},")
    out.append(f"{' ' * i2}.memory_gib_x100 = {opt(gib_x100(p.get('memory_gib_printed'), where))},")
    out.append(f"{' ' * i2}.sm_count = {opt(p.get('sm_count'))},")
    out.append(f"{' ' * i2}.engines = {{{engines}}},")
    # A profile's own branch only where it is later than the model's: the
    # same branch is the model's, written once (json.md: null in profiles).
    own = min_driver_of(p.get("min_driver"))
    if own and model.min_driver and int(own[1:]) <= int(model.min_driver[1:]):
        own = ""
    out.extend(string_field(i2, ".min_driver = ", own))
    out.append(f"{' ' * i2}.prov =")
    out.append(" " * i3 + "{")
    out.extend(string_field(i4, ".source = ", p.get("source") or ""))
    out.extend(string_field(i4, ".placements_source = ", p.get("placements_source") or ""))
    out.append(f"{' ' * i4}.inferred = {inferred_expr(p.get('inferred_fields') or [], where)},")
    out.extend(string_field(i4, ".notes = ", p.get("notes") or ""))
    out.append(" " * i3 + "},")
    if former:
        out.append(f"{' ' * i2}.former_names = {former_ident},")
    if circulating:
        out.append(f"{' ' * i2}.circulating_names = {circulating_ident},")
    if ci_ident:
        out.append(f"{' ' * i2}.ci_profiles = {ci_ident},")
    out.append(" " * INDENT + "},")
    return pre, out


def emit_model(g: dict, model: Model) -> tuple[list[str], list[str]]:
    """Returns (the per-model arrays, the gpu_model initializer)."""
    slug = model.slug
    model_entry = model
    sid = ident(slug)
    units = g.get("memory_slices")
    if not isinstance(units, int) or not 0 < units <= 16:  # 16 = migplan::max_units
        fail(f"{slug}: memory_slices {units!r} is not a unit count in 1..16")
    if not isinstance(g.get("sm_slices"), int):
        fail(f"{slug}: sm_slices {g.get('sm_slices')!r} is not an integer")

    files = model.evidence
    # Every capture a row cites must be listed as evidence.
    cited = set()
    for p in g["gi_profiles"]:
        for key in ("source", "placements_source"):
            cited.update(re.findall(r"captures/([\w.-]+\.txt)", p.get(key) or ""))
        for ci in p.get("ci_profiles") or []:
            cited.update(re.findall(r"captures/([\w.-]+\.txt)", ci.get("source") or ""))
    if not cited <= set(files):
        fail(f"{slug}: rows of {JSON_DISPLAY} cite {sorted(cited - set(files))} but "
             f"{MODELS_DISPLAY} does not list them as table_source captures")
    evidence = ", ".join(f"data/captures/{f}" for f in files) or NO_CAPTURE_EVIDENCE

    out = ["// " + "-" * (COLUMN_LIMIT - 3)]
    out.extend(comment_lines(0, f"{slug}: {g['name']}. Coverage: {g['coverage']}."))
    out.append("")

    names = model.smi_names
    if names:
        out.append(f"inline constexpr std::string_view {sid}_smi_names[] = {{")
        for name, why in names:
            out.extend(comment_lines(INDENT, why))
            out.extend(string_field(INDENT, "", name))
        out.append("};")

    pcis = [pci_id_of(t, f"{slug}/pci_ids") for t in g.get("pci_ids") or []]
    if pcis:
        out.append(f"inline constexpr pci_id {sid}_pci_ids[] = {{")
        for value, inferred in pcis:
            flag = "true" if inferred else "false"
            out.append(f"{' ' * INDENT}{{.value = 0x{value:08X}, .inferred = {flag}}},")
        out.append("};")

    former_blocks: list[str] = []
    rows: list[str] = []
    for p in g["gi_profiles"]:
        pre, row = emit_profile(p, model, units)
        former_blocks.extend(pre)
        rows.extend(row)
    out.extend(former_blocks)
    out.append(f"inline constexpr profile {sid}_profiles[] = {{")
    out.extend(rows)
    out.append("};")

    i2 = 2 * INDENT
    model = [" " * INDENT + "{"]
    model.extend(string_field(i2, ".slug = ", slug))
    model.extend(string_field(i2, ".description = ", g["name"]))
    model.append(f"{' ' * i2}.smi_names = {sid + '_smi_names' if names else '{}'},")
    model.append(f"{' ' * i2}.pci_ids = {sid + '_pci_ids' if pcis else '{}'},")
    model.append(f"{' ' * i2}.memory_mib = {opt(g.get('total_memory_mib'))},")
    model.append(f"{' ' * i2}.units = {units},")
    model.append(f"{' ' * i2}.compute_slices = {g['sm_slices']},")
    model.append(f"{' ' * i2}.profiles = {sid}_profiles,")
    model.append(f"{' ' * i2}.cover = {coverage_of(g['coverage'], slug)},")
    model.extend(string_field(i2, ".coverage_note = ", g["coverage"]))
    model.extend(string_field(i2, ".evidence = ", evidence))
    if model_entry.min_driver:
        model.extend(string_field(i2, ".min_driver = ", model_entry.min_driver))
        model.extend(string_field(i2, ".min_driver_version = ", model_entry.min_driver_version))
    model.append(" " * INDENT + "},")
    return out, model


def data_revision() -> str:
    """The catalog's data revision: the first 12 hex digits of the SHA-256 of
    data/mig-profiles.json and data/models.json, as bytes, in that order.
    `migplan --version` prints it; any edit to the data changes it."""
    h = hashlib.sha256()
    for path in (JSON_PATH, MODELS_PATH):
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


def generate(doc: dict, models_doc: object) -> tuple[str, str]:
    """The catalog header and the body of driver_observations."""
    gpus = {g["id"]: g for g in doc["gpus"]}
    models = read_models(models_doc, gpus)
    observations = emit_observations(read_observations(models_doc, gpus, models))

    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "#pragma once",
        "",
        "// generated by data/gen_catalog.py from data/mig-profiles.json, do not edit.",
        "// Regenerate with `python3 data/gen_catalog.py`; the sources of every value are in",
        "// data/SOURCES.md and in the provenance fields below.",
        "",
        "#include <migplan/gpu.hpp>",
        "",
        "namespace migplan {",
        "inline namespace v1 {",
        "namespace detail {",
        "",
    ]
    initializers: list[str] = []
    for model in models:
        block, initializer = emit_model(gpus[model.slug], model)
        lines.extend(block)
        lines.append("")
        initializers.extend(initializer)
    lines.append("// " + "-" * (COLUMN_LIMIT - 3))
    lines.append("")
    lines.append("/// SHA-256 of data/mig-profiles.json and data/models.json, first 12 hex digits.")
    lines.append(f'inline constexpr char catalog_revision[] = "{data_revision()}";')
    lines.append("")
    lines.append("/// The built-in models, in catalog order.")
    lines.append("inline constexpr gpu_model catalog_models[] = {")
    lines.extend(initializers)
    lines.append("};")
    lines.append("")
    lines.append("}  // namespace detail")
    lines.append("}  // namespace v1")
    lines.append("}  // namespace migplan")
    text = "\n".join(lines) + "\n"
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > COLUMN_LIMIT:
            fail(f"internal: generated line {n} is {len(line)} columns: {line!r}")
    return text, observations


def emit_observations(observations: list[Observation]) -> str:
    """The body of driver_observations (include/migplan/driver_order.hpp includes it inside
    the array's braces), one designated initializer per observation."""
    lines = [
        "// SPDX-License-Identifier: Apache-2.0",
        "// generated by data/gen_catalog.py from data/models.json (driver_observations) and the",
        "// captures each entry names, do not edit. Regenerate with `python3 data/gen_catalog.py`.",
        "// driver, steps, profile_ids and starts are read from the captures: the creation order",
        "// from the \"Successfully created GPU instance ID N ... (ID P)\" and \"Unable to create\"",
        "// lines, each start from the -lgi row of instance N. The body of the array",
        "// driver_observations in <migplan/driver_order.hpp>, which includes it; not a header.",
        "",
    ]

    def int_list(prefix: str, values: list[str]) -> list[str]:
        one = f"{' ' * 5}.{prefix} = {{{', '.join(values)}}},"
        if len(one) <= COLUMN_LIMIT:
            return [one]
        # clang-format's bin-packing: as many per line as fit, aligned after the brace.
        col = len(f"{' ' * 5}.{prefix} = {{")
        out, cur = [], f"{' ' * 5}.{prefix} = {{"
        for i, v in enumerate(values):
            piece = v + ("}," if i == len(values) - 1 else ",")
            if cur.endswith("{") or len(cur) + 1 + len(piece) <= COLUMN_LIMIT:
                cur += ("" if cur.endswith("{") else " ") + piece
            else:
                out.append(cur)
                cur = " " * col + piece
        out.append(cur)
        return out

    for o in observations:
        lines.extend(string_field(4, "{.gpu = ", o.gpu))
        lines.extend(string_field(5, ".driver = ", o.driver))
        lines.append(f"     .steps = {len(o.profile_ids)},")
        lines.extend(int_list("profile_ids", [str(i) for i in o.profile_ids]))
        lines.extend(int_list("starts", o.starts))
        lines.append(f"     .reproduced = {'true' if o.reproduced else 'false'},")
        lines.extend(string_field(5, ".source = ", o.source))
        lines.extend(string_field(5, ".note = ", o.note, "},"))
    text = "\n".join(lines) + "\n"
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > COLUMN_LIMIT:
            fail(f"internal: generated line {n} of {OBS_DISPLAY} is {len(line)} columns")
    return text


def clang_format(text: str) -> str:
    exe = shutil.which("clang-format")
    if exe is None:
        return text
    # --assume-filename makes clang-format pick up the repo .clang-format for the output path.
    res = subprocess.run([exe, "--style=file", f"--assume-filename={OUT_PATH}"], input=text,
                         capture_output=True, text=True, check=False)
    if res.returncode != 0:
        fail(f"clang-format failed: {res.stderr.strip()}")
    return res.stdout


def layout_free(text: str) -> tuple[str, str]:
    """`text` (C++) with its layout taken out: the code with every blank removed outside
    string and character literals, adjacent string literals joined (clang-format may
    break a long one in two), and the words of its comments, which clang-format may
    reflow, on their own."""
    code: list[str] = []
    words: list[str] = []
    i, n = 0, len(text)
    last_literal_end = -1  # index in `code` just after the last string literal
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            words.extend(text[i + 2:j].split())
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            words.extend(text[i + 2:j - 2].split())
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            body = text[i + 1:j]
            i = j + 1
            if c == '"' and last_literal_end == len(code) and code and code[-1].endswith('"'):
                code[-1] = code[-1][:-1] + body + '"'  # "ab" "cd" is "abcd"
            else:
                code.append(f"{c}{body}{c}")
            last_literal_end = len(code) if c == '"' else -1
        elif c.isspace():
            i += 1
        else:
            code.append(c)
            last_literal_end = -1
            i += 1
    return "".join(code), " ".join(words)


def same_modulo_layout(a: str, b: str) -> bool:
    """True when two C++ texts differ at most in layout: blanks, line breaks, the
    wrapping of comments and the splitting of string literals."""
    return a == b or layout_free(a) == layout_free(b)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if a checked-in file differs")
    ap.add_argument("--no-clang-format", action="store_true",
                    help="skip clang-format even if it is on PATH")
    ap.add_argument("--header", type=Path, default=OUT_PATH,
                    help="with --check: the catalog header to compare (default: the checked-in "
                    "one)")
    ap.add_argument("--observations", type=Path, default=OBS_PATH,
                    help="with --check: the driver_observations body to compare (default: the "
                    "checked-in one)")
    args = ap.parse_args()
    try:
        doc = load_json(JSON_PATH, JSON_DISPLAY)
        text, observations = generate(doc, load_json(MODELS_PATH, MODELS_DISPLAY))
        # --check compares modulo layout, so it needs no clang-format.
        if not args.no_clang_format and not args.check:
            text = clang_format(text)
    except DataError as e:
        print(f"gen_catalog: error: {e}", file=sys.stderr)
        return 2
    outputs = [(args.header, OUT_DISPLAY, text), (args.observations, OBS_DISPLAY, observations)]
    if args.check:
        stale = 0
        for path, display, want in outputs:
            current = path.read_text(encoding="utf-8") if path.exists() else ""
            if not same_modulo_layout(current, want):
                print(f"gen_catalog: {display} is stale; run python3 data/gen_catalog.py",
                      file=sys.stderr)
                stale = 1
        return stale
    for path, _, want in ((OUT_PATH, OUT_DISPLAY, text), (OBS_PATH, OBS_DISPLAY, observations)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(want, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
