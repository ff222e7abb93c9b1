# SPDX-License-Identifier: Apache-2.0
"""What the --plot checks (check_pack_svg.py, check_plan_svg.py) share: a
picture is self-contained, a screenshot by Debian's chromium, and whether a
PNG is blank."""

import os
import shutil
import struct
import subprocess
import sys
import zlib

SVG = "{http://www.w3.org/2000/svg}"


def outside_references(root):
    """The problems that make an SVG not self-contained: scripts, and
    references to anything but its own elements."""
    problems = []
    for el in root.iter():
        if el.tag == SVG + "script":
            problems.append("has a <script>")
        for key, value in el.attrib.items():
            ref = "href" in key or value.startswith("url(") and not value.startswith("url(#")
            if ref and not value.startswith("#"):
                problems.append(f"refers outside: {key}={value}")
    return problems


def png_is_blank(path):
    """True when every pixel of an 8-bit PNG has the same bytes (or it cannot be read)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return True
    at, idat, width, depth, color = 8, b"", 0, 0, 0
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            width, _, depth, color = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(color)
    if depth != 8 or channels is None:
        return True
    raw = zlib.decompress(idat)
    stride = width * channels + 1
    rows = [raw[i + 1:i + stride] for i in range(0, len(raw), stride)]
    # Filtered rows: a blank image has every row filtered to the same bytes
    # after the first, so count distinct rows instead of decoding filters.
    return len(set(rows)) <= 2


def chromium():
    """Debian's chromium, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


def screenshot(browser, svg, size):
    """The path of chromium's screenshot of `svg` at `size` ("800,300"), or None."""
    png = svg + ".png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                    f"--screenshot={png}", f"--window-size={size}", "file://" + svg],
                   capture_output=True, timeout=120)
    return png if os.path.exists(png) else None


class Checks:
    """A test's failures, printed as they come, and the binary it runs."""

    def __init__(self, binary):
        self.binary = binary
        self.failures = []

    def check(self, ok, what):
        if not ok:
            self.failures.append(what)
            print("FAIL:", what)

    def migplan(self, *args):
        return subprocess.run([self.binary, *args], capture_output=True, text=True)

    def finish(self):
        """Exit 1 after any failure, else say ok."""
        if self.failures:
            sys.exit(1)
        print("ok")
