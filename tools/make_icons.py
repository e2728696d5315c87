#!/usr/bin/env python3
"""Render the client's PNG icons from its hand-drawn SVG icon.

    python3 tools/make_icons.py [--chromium /usr/bin/chromium]

reads ``src/wuhan_mahjong/web/icons/icon.svg`` and writes, beside it:

* ``icon-192.png`` and ``icon-512.png``: the icon as drawn (rounded felt square, transparent
  corners), for the manifest's ``"purpose": "any"``;
* ``icon-maskable-512.png``: the tile (``<g id="tile">``) smaller, on a full felt square, so
  a launcher's mask (a circle, a squircle) cuts only felt: the whole tile lies inside the
  centre circle of 40 % of the size that the maskable-icon format keeps;
* ``apple-touch-icon.png`` (180 × 180): the same full square, opaque, as iOS wants it (it
  rounds the corners itself).

The SVG is rendered by the headless chromium the browser tests use (Playwright), so the
PNGs are exactly what a browser draws from the SVG.  Run it after editing ``icon.svg`` and
commit the PNGs (``tests/web/test_installable.py`` checks their sizes).
"""

from __future__ import annotations

import argparse
import base64
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ICONS = ROOT / "src" / "wuhan_mahjong" / "web" / "icons"
SOURCE = ICONS / "icon.svg"
MASKABLE_SCALE = 0.72
"""The tile's scale on the maskable icon: its farthest corner then lies 171 of 512 from the
centre, inside the safe circle's 204.8."""
TILE_CENTRE = (256, 261)


def tile_group(svg: str) -> str:
    """The ``<g id="tile">…</g>`` of the icon."""
    found = re.search(r'<g id="tile">.*?</g>', svg, re.DOTALL)
    if not found:
        raise SystemExit(f'{SOURCE} has no <g id="tile">')
    return found.group(0)


def full_square(svg: str) -> str:
    """The icon's tile, scaled into the maskable safe zone, on a full square of felt."""
    defs = re.search(r"<defs>.*?</defs>", svg, re.DOTALL)
    x, y = TILE_CENTRE
    return ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 512 512" width="512" height="512">'
            + (defs.group(0) if defs else "")
            + '<rect width="512" height="512" fill="url(#felt)"/>'
            + f'<g transform="translate(256 256) scale({MASKABLE_SCALE}) translate({-x} {-y})">'
            + tile_group(svg) + "</g></svg>")


def render(page: object, svg: str, size: int, out: Path) -> None:
    """``svg`` drawn at ``size`` × ``size`` pixels into the PNG ``out``."""
    src = "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    html = (f'<!doctype html><html><body style="margin:0;background:transparent">'
            f'<img id="icon" src="{src}" width="{size}" height="{size}" style="display:block"></body></html>')
    page.set_viewport_size({"width": size, "height": size})  # type: ignore[attr-defined]
    page.set_content(html)  # type: ignore[attr-defined]
    page.wait_for_function("() => document.getElementById('icon').complete")  # type: ignore[attr-defined]
    page.locator("#icon").screenshot(path=str(out), omit_background=True)  # type: ignore[attr-defined]
    print(f"wrote {out.relative_to(ROOT)} ({size} x {size})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--chromium", default="/usr/bin/chromium", help="the chromium to render with")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    svg = SOURCE.read_text(encoding="utf-8")
    square = full_square(re.sub(r"<!--.*?-->", "", svg, flags=re.DOTALL))
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium,
                                    args=["--headless", "--no-sandbox", "--disable-gpu"])
        page = browser.new_page(device_scale_factor=1)
        render(page, svg, 192, ICONS / "icon-192.png")
        render(page, svg, 512, ICONS / "icon-512.png")
        render(page, square, 512, ICONS / "icon-maskable-512.png")
        render(page, square, 180, ICONS / "apple-touch-icon.png")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
