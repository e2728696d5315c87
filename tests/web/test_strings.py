"""Every string the client shows lives in i18n.js, in both languages."""

from __future__ import annotations

import re
from pathlib import Path

WEB = Path(__file__).resolve().parents[2] / "src" / "wuhan_mahjong" / "web"


def _table(source: str, name: str) -> set[str]:
    body = source.split(f"const {name} = {{", 1)[1].split("\n};", 1)[0]
    return set(re.findall(r'^\s*"([\w.]+)":', body, re.M))


def test_both_languages_have_the_same_keys() -> None:
    src = (WEB / "i18n.js").read_text()
    zh, en = _table(src, "zh"), _table(src, "en")
    assert zh and zh == en, (sorted(zh - en), sorted(en - zh))


def test_every_literal_key_exists() -> None:
    zh = _table((WEB / "i18n.js").read_text(), "zh")
    missing = []
    for js in WEB.glob("*.js"):
        if js.name == "i18n.js":
            continue
        for key in re.findall(r'\bt\("([\w.]+)"', js.read_text()):
            if key not in zh:
                missing.append(f"{js.name}: {key}")
    assert not missing


def test_no_chinese_outside_i18n_and_tiles() -> None:
    """UI text is never hard-coded: Chinese characters appear only in i18n.js (and the tile faces)."""
    han = re.compile(r"[\u4e00-\u9fff]")
    offenders = []
    for js in WEB.glob("*.js"):
        if js.name in ("i18n.js", "tiles.js", "glyphs.js"):
            continue
        for no, line in enumerate(js.read_text().splitlines(), 1):
            code = line.split("//", 1)[0]
            if code.strip().startswith(("/*", "*")):
                continue
            if han.search(code):
                offenders.append(f"{js.name}:{no}: {line.strip()}")
    assert not offenders, offenders
