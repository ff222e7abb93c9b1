#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate include/migplan/detail/catalog_data.hpp from data/mig-profiles.json.

The JSON is the evidence (every value cites its source); the header is a pure
transcription of it plus the few curated facts below that the JSON does not
hold in machine-readable form (nvidia-smi names, former profile names, the
capture files each table was transcribed from). Nothing is invented: a value
the JSON leaves null stays an empty optional.

Usage:
    python3 data/gen_catalog.py            # (re)write the header
    python3 data/gen_catalog.py --check    # exit 1 if the checked-in header is stale

The output is deterministic and already laid out the way clang-format (repo
.clang-format) lays it out; when clang-format is on PATH it is run on the
output as well, so either way the header passes `clang-format --dry-run --Werror`.
Standard library only.
"""

from __future__ import annotations

import argparse
import decimal
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
REPO_ROOT = DATA_DIR.parent
JSON_PATH = DATA_DIR / "mig-profiles.json"
OUT_PATH = REPO_ROOT / "include" / "migplan" / "detail" / "catalog_data.hpp"
OUT_DISPLAY = "include/migplan/detail/catalog_data.hpp"

COLUMN_LIMIT = 100  # .clang-format ColumnLimit
INDENT = 4  # Google style: continuation / braced-list indent

# ---------------------------------------------------------------------------
# Curated facts. Each entry names where it comes from.
# ---------------------------------------------------------------------------

# The built-in models, in catalog order. JSON `gpus[].id` is the slug.
SLUGS = [
    "a30",
    "a100-40gb",
    "a100-80gb",
    "h100-80gb",
    "h100-pcie",
    "h100-nvl",
    "gh200-96gb",
    "gh200-144gb",
    "h20",
    "h200",
    "b200",
    "gb200",
    "b300",
    "gb300",
    "rtx-pro-6000",
]

# JSON entries deliberately left out: none has placements, so nothing can be planned on them.
SKIPPED = {
    "rtx-pro-5000": "docs-only; no IDs, no placements",
    "rtx-pro-4500": "docs-only; no IDs, no placements",
    "thor-igpu": "docs-only; no IDs, no placements",
    "config-only-others": "a group of sibling SKUs, not one model; no profile table",
}

# Names exactly as nvidia-smi prints them, only where a capture or a cited source shows them.
# An empty list means no source shows the printed name (the JSON name is then descriptive).
# k8s-test-infra = https://github.com/NVIDIA/k8s-test-infra @ 5f8956ad, real `nvidia-smi -q -x`
# captures tests/e2e/go/assertions/nvidiasmi/testdata/hardware/qx-*.xml (README lists the nodes).
SMI_NAMES: dict[str, list[tuple[str, str]]] = {
    "a30": [
        ("NVIDIA A30", "data/captures/a30-* source (driver 535.183.01)"),
    ],
    "a100-40gb": [
        ("NVIDIA A100-SXM4-40GB", "k8s-test-infra qx-a100.xml (driver 570.148.08)"),
        ("A100-SXM4-40GB", "older drivers: MIG guide nvidia-smi -L, seansiddens/mps-test (450.80.02)"),
        # The JSON lists this PCIe sibling as an alias in this unprefixed form only; no capture
        # shows it. Lookups ignore a leading "NVIDIA " on either side, so the prefixed form that
        # newer drivers would print also matches without being claimed here.
        ("A100-PCIE-40GB", "mig-profiles.json aliases (no capture)"),
    ],
    "a100-80gb": [
        # The only captures (driver 515.86.01) print the truncated 'NVIDIA A100 80G...'; both
        # full names are the model name recorded in mig-profiles.json / mig-profiles.md.
        ("NVIDIA A100-SXM4-80GB", "mig-profiles.json name (captures show 'NVIDIA A100 80G...')"),
        ("NVIDIA A100 80GB PCIe", "mig-profiles.json name (captures show 'NVIDIA A100 80G...')"),
    ],
    "h100-80gb": [
        ("NVIDIA H100 80GB HBM3", "data/captures/h100-80gb-hbm3-* source; k8s-test-infra qx-h100"),
    ],
    "h100-pcie": [
        ("NVIDIA H100 PCIe", "data/captures/h100-pcie-* source (scaleway docs-content, 525.125.06)"),
    ],
    "h100-nvl": [
        ("NVIDIA H100 NVL", "data/captures/h100-nvl-* source (Azure NC40ads_H100_v5, 560.35.03)"),
    ],
    "gh200-96gb": [],  # capture source does not print the GPU name
    "gh200-144gb": [],  # mig-parted PR 139 shows -lgip only
    "h20": [],  # nothing captured
    "h200": [],  # mig-parted issue 120 fragments carry no name line
    "b200": [
        ("NVIDIA B200", "k8s-test-infra qx-b200.xml (driver 580.105.08)"),
    ],
    "gb200": [
        ("NVIDIA GB200", "k8s-test-infra qx-gb200.xml (driver 580.173.02)"),
    ],
    "b300": [],  # nothing captured
    "gb300": [
        ("NVIDIA GB300", "k8s-test-infra qx-gb300.xml (driver 580.173.02)"),
    ],
    "rtx-pro-6000": [
        (
            "NVIDIA RTX PRO 6000 Blackwell Server Edition",
            "data/captures/rtx-pro-6000-* source (610.43.02); bottlerocket-kernel-kit PR 300",
        ),
    ],
}

# Names older drivers or NVIDIA's early configs used for a profile that now has another name.
# Source: mig-profiles.md / .json (GB200 rows and section 7): the early GB200 driver printed
# 1g.24gb / 1g.24gb+me (nvidia-smi -lgip in https://github.com/NVIDIA/gpu-operator/pull/1303,
# data/captures/gb200-lgip-partial-pr1303.txt); NVIDIA's first GB200 MIG config used
# 3g.95gb / 4g.95gb / 7g.189gb (mig-parted commit 89dd81a3, renamed in ebab1f77).
_PR1303 = "early GB200 driver, nvidia-smi -lgip in gpu-operator PR 1303 (2025-03-01)"
_CFG = "early NVIDIA GB200 MIG config (mig-parted commit 89dd81a3; gpu-operator PR 1303 era)"
FORMER_NAMES: dict[tuple[str, str], list[tuple[str, str]]] = {
    ("gb200", "1g.23gb"): [("1g.24gb", _PR1303)],
    ("gb200", "1g.23gb+me"): [("1g.24gb+me", _PR1303)],
    ("gb200", "3g.93gb"): [("3g.95gb", _CFG)],
    ("gb200", "4g.93gb"): [("4g.95gb", _CFG)],
    ("gb200", "7g.186gb"): [("7g.189gb", _CFG)],
}

# data/captures files each model's table was transcribed from (the "Sources" line of each GPU
# in mig-profiles.md, matched against the JSON `captures` list). Corroborating captures that
# are not the table's source (b200 PR 187, h200 test fixture, rtx-pro-6000 cubecos, a100-40gb
# pre-R525 -lgipp) are checked by tests/core/catalog_evidence_test.cpp instead.
EVIDENCE: dict[str, list[str]] = {
    "a30": ["a30-lgip.txt", "a30-lgipp.txt"],
    "a100-40gb": ["a100-40gb-lgip.txt", "a100-40gb-lgipp.txt"],
    "a100-80gb": ["a100-80gb-lgip-r515.txt"],
    "h100-80gb": ["h100-80gb-hbm3-lgip.txt", "h100-80gb-hbm3-lgipp.txt"],
    "h100-pcie": ["h100-pcie-lgip.txt", "h100-pcie-lgipp.txt"],
    "h100-nvl": ["h100-nvl-lgip.txt", "h100-nvl-lgipp.txt"],
    "gh200-96gb": ["gh200-96gb-lgip.txt"],
    "gh200-144gb": ["gh200-144gb-lgip-partial-pr139.txt"],
    "h20": [],
    "h200": ["h200-lgip-fragment-gpu6-issue120.txt", "h200-lgip-fragment-gpu2-issue120.txt"],
    "b200": ["b200-lgip-partial-pr166.txt"],
    # The JSON row source names issue 227 and PR 1303 by URL; these are their captures.
    "gb200": ["gb200-lgip-partial-issue227.txt", "gb200-lgip-partial-pr1303.txt"],
    "b300": [],
    "gb300": [],
    "rtx-pro-6000": ["rtx-pro-6000-lgip.txt", "rtx-pro-6000-lgipp.txt"],
}
NO_CAPTURE_EVIDENCE = "none captured: data/mig-profiles.json (names and counts from NVIDIA configs)"

# JSON inferred_fields -> gpu.hpp `field` flags. Anything else is an error.
INFERRED_FIELDS = {
    "id": "field::id",
    "sm_count": "field::sm_count",
    "placements": "field::placements",
    "ce": "field::ce",
    "max_instances": "field::max_instances",
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


def inferred_expr(fields: list[str], where: str) -> str:
    flags = []
    for f in fields:
        if f not in INFERRED_FIELDS:
            fail(f"{where}: unknown inferred field {f!r} (known: {', '.join(INFERRED_FIELDS)})")
        flags.append(INFERRED_FIELDS[f])
    return " | ".join(flags) if flags else "field::none"


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


def emit_profile(p: dict, slug: str, units: int) -> tuple[list[str], list[str]]:
    """Returns (former-name array lines to emit before the table, profile initializer lines)."""
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
    former = FORMER_NAMES.get((slug, name), [])
    former_ident = f"{ident(slug)}_{ident(name)}_former_names"
    if former:
        pre.append(f"inline constexpr former_name {former_ident}[] = {{")
        for old, note in former:
            pre.append(" " * INDENT + "{")
            pre.extend(string_field(2 * INDENT, ".name = ", old))
            pre.extend(string_field(2 * INDENT, ".note = ", note))
            pre.append(" " * INDENT + "},")
        pre.append("};")

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
    out.extend(string_field(i2, ".min_driver = ", min_driver_of(p.get("min_driver"))))
    out.append(f"{' ' * i2}.prov =")
    out.append(" " * i3 + "{")
    out.extend(string_field(i4, ".source = ", p.get("source") or ""))
    out.extend(string_field(i4, ".placements_source = ", p.get("placements_source") or ""))
    out.append(f"{' ' * i4}.inferred = {inferred_expr(p.get('inferred_fields') or [], where)},")
    out.extend(string_field(i4, ".notes = ", p.get("notes") or ""))
    out.append(" " * i3 + "},")
    if former:
        out.append(f"{' ' * i2}.former_names = {former_ident},")
    out.append(" " * INDENT + "},")
    return pre, out


def emit_model(g: dict) -> tuple[list[str], list[str]]:
    """Returns (the per-model arrays, the gpu_model initializer)."""
    slug = g["id"]
    sid = ident(slug)
    units = g.get("memory_slices")
    if not isinstance(units, int) or not 0 < units <= 16:  # 16 = migplan::max_units
        fail(f"{slug}: memory_slices {units!r} is not a unit count in 1..16")
    if not isinstance(g.get("sm_slices"), int):
        fail(f"{slug}: sm_slices {g.get('sm_slices')!r} is not an integer")

    files = EVIDENCE[slug]
    for f in files:
        if not (DATA_DIR / "captures" / f).is_file():
            fail(f"{slug}: evidence file data/captures/{f} does not exist")
    # Every capture a row cites must be listed as evidence.
    cited = set()
    for p in g["gi_profiles"]:
        for key in ("source", "placements_source"):
            cited.update(re.findall(r"captures/([\w.-]+\.txt)", p.get(key) or ""))
    if not cited <= set(files):
        fail(f"{slug}: rows cite {sorted(cited - set(files))} but EVIDENCE does not list them")
    evidence = ", ".join(f"data/captures/{f}" for f in files) or NO_CAPTURE_EVIDENCE

    out = ["// " + "-" * (COLUMN_LIMIT - 3)]
    out.extend(comment_lines(0, f"{slug}: {g['name']}. Coverage: {g['coverage']}."))
    out.append("")

    names = SMI_NAMES[slug]
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
    seen_former = set()
    for p in g["gi_profiles"]:
        pre, row = emit_profile(p, slug, units)
        former_blocks.extend(pre)
        rows.extend(row)
        if (slug, p["name"]) in FORMER_NAMES:
            seen_former.add(p["name"])
    missing = {n for (s, n) in FORMER_NAMES if s == slug} - seen_former
    if missing:
        fail(f"{slug}: FORMER_NAMES names profiles not in the JSON: {sorted(missing)}")
    out.extend(former_blocks)
    out.append(f"inline constexpr profile {sid}_profiles[] = {{")
    out.extend(rows)
    out.append("};")

    i2 = 2 * INDENT
    model = [" " * INDENT + "{"]
    model.extend(string_field(i2, ".slug = ", slug))
    model.extend(string_field(i2, ".display_name = ", g["name"]))
    model.append(f"{' ' * i2}.smi_names = {sid + '_smi_names' if names else '{}'},")
    model.append(f"{' ' * i2}.pci_ids = {sid + '_pci_ids' if pcis else '{}'},")
    model.append(f"{' ' * i2}.memory_mib = {opt(g.get('total_memory_mib'))},")
    model.append(f"{' ' * i2}.units = {units},")
    model.append(f"{' ' * i2}.compute_slices = {g['sm_slices']},")
    model.append(f"{' ' * i2}.profiles = {sid}_profiles,")
    model.append(f"{' ' * i2}.cover = {coverage_of(g['coverage'], slug)},")
    model.extend(string_field(i2, ".coverage_note = ", g["coverage"]))
    model.extend(string_field(i2, ".evidence = ", evidence))
    model.append(" " * INDENT + "},")
    return out, model


def generate(doc: dict) -> str:
    gpus = {g["id"]: g for g in doc["gpus"]}
    unexpected = set(gpus) - set(SLUGS) - set(SKIPPED)
    if unexpected:
        fail(f"JSON has GPUs this script does not know: {sorted(unexpected)}; "
             "add them to SLUGS or SKIPPED")
    absent = [s for s in SLUGS if s not in gpus]
    if absent:
        fail(f"JSON lacks GPUs the catalog needs: {absent}")
    for table in (SMI_NAMES, EVIDENCE):
        if set(table) != set(SLUGS):
            fail(f"curated table keys differ from SLUGS: {sorted(set(table) ^ set(SLUGS))}")

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
    models: list[str] = []
    for slug in SLUGS:
        block, model = emit_model(gpus[slug])
        lines.extend(block)
        lines.append("")
        models.extend(model)
    lines.append("// " + "-" * (COLUMN_LIMIT - 3))
    lines.append("")
    lines.append("/// The built-in models, in catalog order.")
    lines.append("inline constexpr gpu_model catalog_models[] = {")
    lines.extend(models)
    lines.append("};")
    lines.append("")
    lines.append("}  // namespace detail")
    lines.append("}  // namespace v1")
    lines.append("}  // namespace migplan")
    text = "\n".join(lines) + "\n"
    for n, line in enumerate(text.splitlines(), 1):
        if len(line) > COLUMN_LIMIT:
            fail(f"internal: generated line {n} is {len(line)} columns: {line!r}")
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true",
                    help="do not write; exit 1 if the checked-in header differs")
    ap.add_argument("--no-clang-format", action="store_true",
                    help="skip clang-format even if it is on PATH")
    args = ap.parse_args()
    try:
        doc = json.loads(JSON_PATH.read_text(encoding="utf-8"))
        text = generate(doc)
        if not args.no_clang_format:
            text = clang_format(text)
    except DataError as e:
        print(f"gen_catalog: error: {e}", file=sys.stderr)
        return 2
    if args.check:
        current = OUT_PATH.read_text(encoding="utf-8") if OUT_PATH.exists() else ""
        if current != text:
            print(f"gen_catalog: {OUT_DISPLAY} is stale; run python3 data/gen_catalog.py",
                  file=sys.stderr)
            return 1
        return 0
    OUT_PATH.parent.mkdir(parents=True, exist_ok=True)
    OUT_PATH.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
