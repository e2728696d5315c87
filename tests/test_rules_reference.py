"""docs/RULES.md, the rules reference, against the code and the references to it.

* every "§N" or "§N.M" cited in src/, docs/, tests/, bench/ and README.md is a
  heading of docs/RULES.md, and every "RULES.md" named outside docs/ is spelled
  ``docs/RULES.md``;
* every "Project decision N" and "Ambiguity N" / "Amb. N" cited exists;
* §20's options table is exactly the code's: every option of
  :class:`wuhan_mahjong.rules.Rules`, its value in each profile, its range or
  choices and its doc string (``python3 tests/test_rules_reference.py`` prints
  the table to paste when an option changes);
* every worked example of §21 settles as the page says.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any, Literal, get_args, get_type_hints

import pytest

from wuhan_mahjong.analysis import NotAWin
from wuhan_mahjong.rules import OPTION_BOUNDS, PROFILES, Rules, get_rules
from wuhan_mahjong.scoring import settle
from wuhan_mahjong.win_record import parse_win_record

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "RULES.md"
SCANNED = [ROOT / "README.md", *(ROOT / "src").rglob("*.py"), *(ROOT / "src").rglob("*.js"),
           *(ROOT / "docs").glob("*.md"), *(ROOT / "tests").rglob("*.py"),
           *(ROOT / "bench").rglob("*.py")]
SECTION_REF = re.compile(r"§\s?(\d+(?:\.\d+)?)")
# "§17.3-17.4" cites 17.3 and 17.4
RANGE_TAIL = re.compile(r"§\s?\d+(?:\.\d+)?\s?[-–]\s?(\d+(?:\.\d+)?)")
DECISION_REF = re.compile(r"(?:Project )?[Dd]ecisions? (\d+)(?:[/–-](\d+))?")
AMBIGUITY_REF = re.compile(r"(?:Ambiguit(?:y|ies)|Amb\.) (\d+)(?:[a-e])?(?:\s?[–-]\s?(\d+))?")


def rules_text() -> str:
    return RULES_MD.read_text(encoding="utf-8")


def headings() -> set[str]:
    """Section numbers of the page: '## 17. Scoring' is 17, '### 17.8 ...' is 17.8."""
    found = set()
    for m in re.finditer(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules_text(), re.M):
        found.add(m.group(1))
    return found


def section(number: str) -> str:
    """The text of '## N.' up to the next '## '."""
    text = rules_text()
    m = re.search(rf"^## {re.escape(number)}\. .*?(?=^## |\Z)", text, re.M | re.S)
    assert m, f"no section {number}"
    return m.group(0)


def cited_files() -> list[Path]:
    return [p for p in SCANNED if p.is_file() and "egg-info" not in p.parts]


def test_the_reference_is_in_the_repository() -> None:
    text = rules_text()
    assert "## Project decisions (binding)" in text
    assert {str(n) for n in range(23)} <= headings()


def test_every_section_reference_resolves() -> None:
    have = headings()
    missing = []
    for path in cited_files():
        if path == RULES_MD:
            continue
        text = path.read_text(encoding="utf-8")
        for m in [*SECTION_REF.finditer(text), *RANGE_TAIL.finditer(text)]:
            if m.group(1) not in have:
                line = text.count("\n", 0, m.start()) + 1
                missing.append(f"{path.relative_to(ROOT)}:{line}: §{m.group(1)}")
    # the page's own cross-references too
    for m in SECTION_REF.finditer(rules_text()):
        if m.group(1) not in have:
            missing.append(f"docs/RULES.md: §{m.group(1)}")
    assert not missing, "unresolved § references:\n" + "\n".join(missing)


def test_references_name_the_file_in_the_repository() -> None:
    """Outside docs/ the file is cited by its path, docs/RULES.md (in docs/ a bare
    RULES.md is a sibling link)."""
    bad = []
    for path in cited_files():
        if path.parent == ROOT / "docs" or path == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8")
        for m in re.finditer(r"(?<![\w/.])RULES\.md", text):
            line = text.count("\n", 0, m.start()) + 1
            bad.append(f"{path.relative_to(ROOT)}:{line}")
    assert not bad, "write docs/RULES.md:\n" + "\n".join(bad)


def numbered_items(number: str) -> set[int]:
    return {int(m.group(1)) for m in re.finditer(r"^(\d+)\. ", section(number), re.M)}


def test_every_decision_and_ambiguity_cited_exists() -> None:
    text = rules_text()
    decisions_part = text[text.index("## Project decisions"):text.index("## 0. ")]
    decisions = {int(m.group(1)) for m in re.finditer(r"^(\d+)\. ", decisions_part, re.M)}
    assert decisions == set(range(1, 19))
    ambiguities = numbered_items("22")
    assert ambiguities == set(range(1, 41))
    missing = []
    for path in cited_files():
        body = path.read_text(encoding="utf-8")
        for pattern, have, what in ((DECISION_REF, decisions, "decision"),
                                    (AMBIGUITY_REF, ambiguities, "ambiguity")):
            for m in pattern.finditer(body):
                for g in m.groups():
                    if g is not None and int(g) not in have:
                        missing.append(f"{path.relative_to(ROOT)}: {what} {g}")
    assert not missing, "\n".join(missing)


# --------------------------------------------------------------------------- §20 options
def shown(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, tuple | list):
        return ", ".join(str(v) for v in value) or "–"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def choices(name: str) -> str:
    hint = get_type_hints(Rules)[name]
    if name in OPTION_BOUNDS:
        low, high = OPTION_BOUNDS[name]
        return f"{number(low)}–{number(high)}"
    if hint is bool:
        return "true, false"
    if getattr(hint, "__origin__", None) is Literal:
        return " / ".join(get_args(hint))
    if name == "profile":
        return " / ".join(PROFILES)
    if name == "must_kong":
        return "7z, or 7z and 6z"
    if name == "one_suit_contract_hands":
        return "any of qingyise, jiangyise, fengyise"
    raise AssertionError(f"say what option '{name}' accepts")


def options_table() -> str:
    """§20's table, from the code."""
    rows = ["| option | accepts | `yuanhang` | `bianfeng` | `laizishanzhuang` | what it does |",
            "|---|---|---|---|---|---|"]
    profiles = [get_rules(p) for p in ("yuanhang", "bianfeng", "laizishanzhuang")]
    for f in dataclasses.fields(Rules):
        values = " | ".join(shown(getattr(r, f.name)) for r in profiles)
        rows.append(f"| `{f.name}` | {choices(f.name)} | {values} | {f.metadata['doc']} |")
    return "\n".join(rows)


def test_section_20_lists_every_option_as_the_code_has_it() -> None:
    assert set(PROFILES) == {"yuanhang", "bianfeng", "laizishanzhuang"}
    text = section("20")
    table = options_table()
    for row in table.splitlines()[2:]:
        name = row.split("|")[1].strip()
        assert row in text.splitlines(), (
            f"docs/RULES.md §20 is out of date for {name}: expected the row\n{row}\n"
            "(python3 tests/test_rules_reference.py prints the whole table)")
    documented = re.findall(r"^\| `(\w+)` \|", text, re.M)
    assert documented == [f.name for f in dataclasses.fields(Rules)]


# --------------------------------------------------------------------------- §21 examples
def worked_examples() -> list[tuple[str, dict[str, Any], str, str]]:
    """(example heading, record, profile, expected deltas or 'not a win')."""
    out = []
    for part in re.split(r"^### ", section("21"), flags=re.M)[1:]:
        title = part.splitlines()[0]
        m = re.search(r"```json\n(.*?)```\s*<!-- settles: (.*?) -->", part, re.S)
        assert m, f"§21 '{title}' has no record with its settlement"
        record = json.loads(m.group(1))
        for item in m.group(2).split(";"):
            profile, expected = item.strip().split(" ", 1)
            out.append((title, record, profile, expected))
    return out


def test_section_21_has_the_six_examples() -> None:
    titles = {t for t, _, _, _ in worked_examples()}
    assert len(titles) == 6
    assert len(worked_examples()) >= 12


@pytest.mark.parametrize(("title", "record", "profile", "expected"), worked_examples(),
                         ids=lambda x: x if isinstance(x, str) and len(x) < 20 else None)
def test_section_21_examples_settle_as_written(title: str, record: dict[str, Any], profile: str,
                                               expected: str) -> None:
    rec = parse_win_record({**record, "profile": profile})
    if expected == "not a win":
        with pytest.raises(NotAWin):
            settle(rec)
        return
    assert list(settle(rec).deltas) == json.loads(expected), title


if __name__ == "__main__":  # pragma: no cover
    print(options_table())
