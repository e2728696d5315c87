"""Readable without any system CJK font: the tiles are paths, the interface text has a shipped font.

The browser test runs chromium with a fontconfig configuration that only knows the
Latin fonts (DejaVu), so no Chinese font of the machine can help.  It compares
screenshots of every tile face and of a Chinese label with the references in
``reference/`` and checks that the same label in a Latin-only font (boxes, the
control) is far from them, so the comparison can tell glyphs from boxes.

``WM_UPDATE_REFERENCE=1 python3 -m pytest tests/web/test_fonts.py`` rewrites the
references after an intended change of the tiles or the font.
"""

from __future__ import annotations

import importlib.util
import io
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import CHROMIUM, CHROMIUM_ARGS, ROOT, WEB, Console

REFERENCE = Path(__file__).parent / "reference"
UPDATE = os.environ.get("WM_UPDATE_REFERENCE") == "1"
LATIN_FONTS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
"""Latin-only fonts the browser may see (chromium's Debian package brings Liberation)."""


def _tool() -> Any:
    spec = importlib.util.spec_from_file_location("make_web_fonts", ROOT / "tools" / "make_web_fonts.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_shipped_font_covers_every_character_the_client_shows() -> None:
    """A new Chinese string without a new subset fails here: run tools/make_web_fonts.py."""
    ttlib = pytest.importorskip("fontTools.ttLib", reason="pip install 'fonttools[woff]'")
    pytest.importorskip("brotli", reason="pip install 'fonttools[woff]'")
    tool = _tool()
    font = ttlib.TTFont(str(WEB / "fonts" / "wm-sans-sc.woff2"))
    cmap = font.getBestCmap()
    ui = tool.ui_characters()
    missing = [c for c in ui if ord(c) not in cmap]
    assert not missing, f"run tools/make_web_fonts.py: {''.join(missing)}"
    assert font["name"].getDebugName(1) == tool.FAMILY
    # the common characters the interface does not use are in the second file
    common = ttlib.TTFont(str(WEB / "fonts" / "wm-sans-sc-common.woff2"))
    assert common["name"].getDebugName(1) == tool.FAMILY
    common_cmap = common.getBestCmap()
    assert all(ord(c) in cmap or ord(c) in common_cmap for c in tool.common_characters())
    assert len(tool.common_characters()) == 3755
    # the CSS declares the small file for exactly the interface's characters, after the other
    css = (WEB / "fonts" / "wm-sans-sc.css").read_text()
    assert css.index("wm-sans-sc-common.woff2") < css.index('"wm-sans-sc.woff2"')
    small = css.split('"wm-sans-sc.woff2"', 1)[1].split("unicode-range:", 1)[1].split(";", 1)[0]
    declared: set[int] = set()
    for part in small.split(","):
        low, _, high = part.strip().removeprefix("U+").partition("-")
        declared.update(range(int(low, 16), int(high or low, 16) + 1))
    outside = [c for c in ui if ord(c) not in declared]
    assert not outside, f"run tools/make_web_fonts.py: {''.join(outside)}"
    assert f"unicode-range: {tool.UNICODE_RANGE};" in css
    style = (WEB / "style.css").read_text()
    assert '@import url("fonts/wm-sans-sc.css");' in style and f'"{tool.FAMILY}"' in style
    assert (WEB / "fonts" / "OFL.txt").read_text().count("SIL OPEN FONT LICENSE Version 1.1") == 1


def test_every_tile_character_is_a_path() -> None:
    tool = _tool()
    glyphs = (WEB / "glyphs.js").read_text()
    for ch in tool.TILE_CHARS:
        assert re.search(rf'"{ch}": "M[^"]+Z"', glyphs), ch
    tiles = (WEB / "tiles.js").read_text()
    assert "<text" not in tiles and "font-family" not in tiles


@pytest.fixture(scope="module")
def latin_only_browser(browser: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Chromium that sees only Latin fonts (DejaVu, Liberation: no CJK font at all); launched
    by the session's Playwright (one Playwright per process)."""
    latin = [d for d in LATIN_FONTS if d.is_dir()]
    if not latin:
        pytest.skip("no Latin font to render with (apt-get install fonts-dejavu-core)")
    folder = tmp_path_factory.mktemp("fontconfig")
    conf = folder / "fonts.conf"
    dirs = "".join(f"<dir>{d}</dir>" for d in latin)
    conf.write_text(f"""<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>{dirs}<cachedir>{folder / "cache"}</cachedir>
<config><rescan><int>0</int></rescan></config></fontconfig>
""")
    env = {**os.environ, "FONTCONFIG_FILE": str(conf)}
    # the environment really has no CJK font
    if shutil.which("fc-list"):
        listed = subprocess.run(["fc-list", ":lang=zh"], env=env, capture_output=True, text=True, check=False)
        assert listed.stdout.strip() == "", listed.stdout
    b = browser.browser_type.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, env=env)
    yield b
    b.close()


def _image(png: bytes) -> Any:
    image = pytest.importorskip("PIL.Image", reason="pip install pillow")
    return image.open(io.BytesIO(png)).convert("RGB")


def _difference(a: Any, b: Any) -> float:
    """Mean absolute difference per channel, 0-255 (sizes must agree)."""
    from PIL import ImageChops, ImageStat

    assert a.size == b.size, (a.size, b.size)
    return float(sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3)


def _compare(name: str, shot: bytes, artifacts: Path) -> Any:
    got = _image(shot)
    (artifacts / f"fonts-{name}.png").write_bytes(shot)
    ref_path = REFERENCE / f"{name}.png"
    if UPDATE or not ref_path.exists():
        if not UPDATE:
            pytest.fail(f"no reference {ref_path}: run with WM_UPDATE_REFERENCE=1")
        REFERENCE.mkdir(exist_ok=True)
        ref_path.write_bytes(shot)
    ref = _image(ref_path.read_bytes())
    diff = _difference(got, ref)
    assert diff < 2.0, f"{name} differs from its reference by {diff:.2f} (see artifacts/fonts-{name}.png)"
    return got


@pytest.mark.slow
def test_tiles_and_chinese_label_render_without_cjk_font(latin_only_browser: Any, static_server: str,
                                                        artifacts: Path) -> None:
    context = latin_only_browser.new_context(viewport={"width": 600, "height": 420}, device_scale_factor=1)
    page = context.new_page()
    console = Console(page)
    page.goto(f"{static_server}/tests/web/fonts.html")
    page.wait_for_selector("body[data-ready='1']")
    assert page.evaluate("document.fonts.check(\"28px 'WM Sans SC'\", '武汉')")
    tiles = _compare("tiles", page.locator("#tiles").screenshot(), artifacts)
    label = _compare("label", page.locator("#label").screenshot(), artifacts)
    name = _compare("name", page.locator("#name").screenshot(), artifacts)
    control = _image(page.locator("#control").screenshot())
    # the control (boxes) is far from the label: the comparison tells glyphs from boxes
    assert _difference(label, control) > 3 * 2.0, _difference(label, control)
    # a player's name in characters the interface never shows: the common-characters file
    assert page.evaluate("document.fonts.check(\"28px 'WM Sans SC'\", '晓燕琳芳')")
    boxes = page.evaluate("""() => { const e = document.getElementById('control');
      e.textContent = '王晓燕 张琳琳 刘芳芳'; return true; }""")
    assert boxes
    assert _difference(name, _image(page.locator("#control").screenshot())) > 3 * 2.0
    # a tile without its glyph paths is far from the reference too
    page.evaluate("document.querySelectorAll('#tiles path[transform]').forEach((p) => p.remove())")
    bare = _image(page.locator("#tiles").screenshot())
    print("label vs control", _difference(label, control), "tiles vs bare", _difference(bare, tiles))
    assert _difference(bare, tiles) > 2.0
    assert tiles.getbbox() is not None
    assert console.errors == []
    context.close()
