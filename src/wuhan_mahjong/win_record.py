"""A won hand as the settlement reads it (:class:`WinRecord`, one :class:`SeatState` per
seat), and reading a settlement record (the JSON of ``wuhan-mahjong score``) into one.

Every problem that makes a record *malformed* raises :class:`RecordError`
with a one-line message (the CLI exits 2): bad JSON, unknown tiles, profiles
or options, more than four copies of a tile (the face-up indicator counts as
one), seats out of range, wrong hand sizes, impossible melds.  A well-formed
record that is not a legal win is the settlement's business
(:class:`~wuhan_mahjong.analysis.NotAWin`, exit 1).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import jsontext
from .analysis import WIN_BY
from .meld import Meld, MeldError, check_meld
from .problems import InputProblem
from .rules import Rules, RulesError, SpecialKongKind, get_rules
from .tiles import NUM_KINDS, TileError, format_tiles, parse_tiles, suit_of, tile_str


@dataclass(frozen=True)
class SeatState:
    """What the settlement needs to know about one seat at the end of a hand."""

    hand: tuple[int, ...] = ()
    melds: tuple[Meld, ...] = ()
    red_kongs: int = 0
    green_kongs: int = 0
    laizi_kongs: int = 0
    pi_kongs: int = 0
    laizi_discards: int = 0
    ready: bool | None = None


@dataclass(frozen=True)
class WinRecord:
    """A won hand, as the settlement calculator reads it (see ``docs/score.md``)."""

    rules: Rules
    dealer: int
    indicator: int
    winner: int
    win_by: str
    from_seat: int | None
    winning_tile: int
    seats: tuple[SeatState, ...]

    @property
    def laizi(self) -> int:
        return self.rules.laizi_of(self.indicator)


class RecordError(InputProblem):
    """The record is malformed; the message says where (and the code and parameters what,
    for a translation: a ``seat``, a ``meld`` by its place from 0, a ``tile``)."""


def _obj(x: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(x, Mapping):
        raise RecordError(f"{where} must be a JSON object")
    return x


def _absent_is_empty(x: Any) -> Any:
    """An object field left out or null is empty; any other value must be the object itself
    (``"options": ""`` or ``"kongs": 0`` is refused, not read as nothing)."""
    return {} if x is None else x


def _int(x: Any, where: str, lo: int = 0, hi: int | None = None) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise RecordError(f"{where} must be an integer, got {json.dumps(x)}")
    if x < lo or (hi is not None and x > hi):
        rng = f"{lo}-{hi}" if hi is not None else f">= {lo}"
        raise RecordError(f"{where} out of range ({rng}): {x}")
    return x


def _tiles(x: Any, where: str) -> tuple[int, ...]:
    if not isinstance(x, str):
        raise RecordError(f"{where} must be a tile string, got {json.dumps(x)}")
    try:
        return tuple(parse_tiles(x))
    except TileError as e:
        raise RecordError(f"{where}: {e}") from None


def _tile(x: Any, where: str) -> int:
    tiles = _tiles(x, where)
    if len(tiles) != 1:
        raise RecordError(f"{where} must be exactly one tile, got {json.dumps(x)}")
    return tiles[0]


_KNOWN_TOP = {"profile", "options", "dealer", "indicator", "winner", "win_by", "from",
              "winning_tile", "seats"}
_KNOWN_SEAT = {"hand", "melds", "kongs", "laizi_discards", "ready"}


def parse_win_record(data: Any) -> WinRecord:
    """Validate a decoded JSON settlement record and build the :class:`WinRecord`."""
    top = _obj(data, "the record")
    unknown = set(top) - _KNOWN_TOP
    if unknown:
        raise RecordError(f"unknown field '{sorted(unknown)[0]}' in the record")
    profile = top.get("profile", "yuanhang")
    if not isinstance(profile, str):
        raise RecordError("profile must be a string")
    options = _absent_is_empty(top.get("options"))
    try:
        rules = get_rules(profile, _obj(options, "options"))
    except RulesError as e:
        raise RecordError(str(e), e.code, **e.params) from None
    for key in ("dealer", "indicator", "winner", "win_by", "winning_tile", "seats"):
        if key not in top:
            raise RecordError(f"missing field '{key}'")
    dealer = _int(top["dealer"], "dealer", 0, 3)
    winner = _int(top["winner"], "winner", 0, 3)
    indicator = _tile(top["indicator"], "indicator")
    win_by = top["win_by"]
    if win_by not in WIN_BY:
        raise RecordError(f"win_by must be one of {', '.join(WIN_BY)}; got {json.dumps(win_by)}")
    winning_tile = _tile(top["winning_tile"], "winning_tile")
    from_seat: int | None = None
    if win_by in ("discard", "rob_kong"):
        if top.get("from") is None:
            raise RecordError(f"'from' (the {'discarder' if win_by == 'discard' else 'robbed player'}) "
                              f"is required when win_by is {win_by}", "from_missing", win_by=win_by)
        from_seat = _int(top["from"], "from", 0, 3)
        if from_seat == winner:
            raise RecordError("'from' cannot be the winner", "from_winner")
    elif top.get("from") is not None:
        from_seat = _int(top["from"], "from", 0, 3)
        if from_seat != winner:
            raise RecordError(f"'from' must be the winner or absent for a {win_by} win")
        from_seat = None
    seats_raw = top["seats"]
    if not isinstance(seats_raw, list) or len(seats_raw) != 4:
        raise RecordError("seats must be a list of four seats")
    seats = tuple(_seat(s, i, rules, indicator) for i, s in enumerate(seats_raw))
    rec = WinRecord(rules, dealer, indicator, winner, win_by, from_seat, winning_tile, seats)
    _check_sizes(rec)
    _check_copies(rec)
    if win_by == "kong_bloom":
        w = seats[winner]
        if not (any(m.type == "kong" for m in w.melds) or w.red_kongs or w.green_kongs
                or w.laizi_kongs or w.pi_kongs):
            raise RecordError("win_by kong_bloom (杠上花) needs a kong by the winner: a kong meld "
                              "or a special kong (red, green, laizi, pi)", "bloom_without_kong",
                              seat=winner)
    if win_by == "rob_kong":
        assert from_seat is not None
        if not any(m.type == "peng" and m.tiles[0] == winning_tile
                   for m in seats[from_seat].melds):
            raise RecordError(f"the robbed player (seat {from_seat}) has no peng of "
                              f"{tile_str(winning_tile)} to add a kong to", "robbed_without_peng",
                              seat=from_seat, tile=tile_str(winning_tile))
    return rec


def _seat(raw: Any, i: int, rules: Rules, indicator: int) -> SeatState:
    where = f"seats[{i}]"
    laizi = rules.laizi_of(indicator)
    s = _obj(raw, where)
    unknown = set(s) - _KNOWN_SEAT
    if unknown:
        raise RecordError(f"unknown field '{sorted(unknown)[0]}' in {where}")
    hand = _tiles(s.get("hand", ""), f"{where}.hand")
    melds_raw = s.get("melds", [])
    if not isinstance(melds_raw, list):
        raise RecordError(f"{where}.melds must be a list")
    melds = tuple(_meld(m, j, i, rules, laizi) for j, m in enumerate(melds_raw))
    if len(melds) > 4:
        raise RecordError(f"{where} has more than four melds", "too_many_melds", seat=i)
    kongs = _obj(_absent_is_empty(s.get("kongs")), f"{where}.kongs")
    bad = set(kongs) - {"red", "green", "laizi", "pi"}
    if bad:
        raise RecordError(f"unknown kong kind '{sorted(bad)[0]}' in {where}.kongs")
    red = _count(kongs.get("red", 0), f"{where}.kongs.red", i, "red", 4)
    green = _count(kongs.get("green", 0), f"{where}.kongs.green", i, "green", 4)
    lz = _count(kongs.get("laizi", 0), f"{where}.kongs.laizi", i, "laizi", 4)
    pi = _count(kongs.get("pi", 0), f"{where}.kongs.pi", i, "pi", 3)
    if green and 32 not in rules.must_kong_tiles:
        raise RecordError(f"{where}: 发财杠 (green kong) is not played in profile '{rules.profile}'",
                          "green_kong_not_played", seat=i, profile=rules.profile)
    if pi and not rules.pi_kong_active:
        raise RecordError(f"{where}: 癞子皮杠 (indicator kong) is not played with these options",
                          "pi_kong_not_played", seat=i)
    if pi and indicator in rules.must_kong_tiles:
        # playing out a must-kong tile is always its own special kong (Project decision 4),
        # so with one of them face up there is no 癞子皮杠 (as the engine has it)
        raise RecordError(f"{where}: no 癞子皮杠 (indicator kong) with {tile_str(indicator)} "
                          "turned up: playing one out is always its 红中杠 (or 发财杠)",
                          "pi_kong_not_played", seat=i)
    discards = _count(s.get("laizi_discards", 0), f"{where}.laizi_discards", i, "laizi_discards", 4)
    ready = s.get("ready")
    if ready is not None and not isinstance(ready, bool):
        raise RecordError(f"{where}.ready must be true or false")
    return SeatState(hand, melds, red, green, lz, pi, discards, ready)


def _count(x: Any, where: str, seat: int, kind: str, most: int) -> int:
    """A seat's count of special kongs of ``kind`` (or of laizi discards): 0 to ``most``.
    A whole number out of range is a problem a client words itself (``kong_count``): it is
    what a person types in a count field."""
    if isinstance(x, int) and not isinstance(x, bool) and not 0 <= x <= most:
        raise RecordError(f"{where} out of range (0-{most}): {x}", "kong_count", seat=seat,
                          kind=kind, count=x, most=most)
    return _int(x, where, 0, most)


def _meld(raw: Any, index: int, seat: int, rules: Rules, laizi: int) -> Meld:
    where = f"seats[{seat}].melds[{index}]"
    at: dict[str, int | str] = {"seat": seat, "meld": index}
    m = _obj(raw, where)
    mtype = m.get("type")
    if mtype not in ("chi", "peng", "kong"):
        raise RecordError(f"{where}.type must be chi, peng or kong; got {json.dumps(mtype)}")
    tiles = tuple(sorted(_tiles(m.get("tiles", ""), f"{where}.tiles")))
    kind = m.get("kind")
    if mtype == "kong":
        if kind not in ("direct", "added", "concealed"):
            raise RecordError(f"{where}.kind must be direct, added or concealed")
    elif kind is not None:
        raise RecordError(f"{where}: only kongs have a kind")
    frm = m.get("from")
    if kind == "concealed":
        if frm is not None and frm != seat:
            raise RecordError(f"{where}: a concealed kong is fed by nobody", "concealed_fed", **at)
        frm = None
    else:
        frm = _int(frm, f"{where}.from", 0, 3)
        if frm == seat:
            raise RecordError(f"{where}: a player cannot feed his own {mtype}", "own_feed",
                              **at, type=mtype)
    if mtype == "chi":
        ok = (len(tiles) == 3 and tiles[0] < 27 and suit_of(tiles[0]) == suit_of(tiles[2])
              and tiles[1] == tiles[0] + 1 and tiles[2] == tiles[0] + 2)
        if not ok:
            raise RecordError(f"{where}: a chi must be a run of three in one suit", "chi_not_run",
                              **at)
        if frm != (seat - 1) % 4:
            raise RecordError(f"{where}: a chi can only take the previous player's discard",
                              "chi_not_previous", **at)
    else:
        n = 3 if mtype == "peng" else 4
        if len(tiles) != n or len(set(tiles)) != 1:
            raise RecordError(f"{where}: a {mtype} must be {n} identical tiles", "not_identical",
                              **at, type=mtype, count=n)
    meld = Meld(mtype, tiles, frm, kind)
    try:
        check_meld(meld, laizi, rules.must_kong_tiles)
    except MeldError as e:
        raise RecordError(f"{where}: {e}", e.code, **at, **e.params) from None
    return meld


def _check_sizes(rec: WinRecord) -> None:
    """The winner makes 14 with the winning tile; a loser whose tiles are given holds 13.

    In a 海底捞 (``last_tile``) win a loser may hold 14: the final draws come without a
    discard (docs/RULES.md §16), so a seat that drew one before the winner keeps it.  The
    winner wins on the first round of final draws (a second draw would leave him 15 tiles,
    no hand), so nobody holds more than one such tile."""
    sizes = (13, 14) if rec.win_by == "last_tile" else (13,)
    for i, st in enumerate(rec.seats):
        n = len(st.hand) + 3 * len(st.melds)
        if i == rec.winner:
            if n + 1 != 14:
                raise RecordError(
                    f"wrong hand size: the winner has {len(st.hand)} concealed tiles and "
                    f"{len(st.melds)} melds; with the winning tile that must make 14",
                    "winner_size", seat=i, tiles=len(st.hand), melds=len(st.melds))
        elif st.hand and n not in sizes:
            expected = ("13 - 3 x melds, or 14 - 3 x melds with a final draw kept"
                        if len(sizes) > 1 else "13 - 3 x melds")
            raise RecordError(f"wrong hand size: seats[{i}] has {len(st.hand)} concealed tiles "
                              f"and {len(st.melds)} melds (expected {expected})",
                              "seat_size", seat=i, tiles=len(st.hand), melds=len(st.melds))


def _check_copies(rec: WinRecord) -> None:
    """At most four copies of any tile kind in everything the record shows.

    The face-up indicator (癞子皮) is out of play for the whole hand (docs/RULES.md,
    Project decision 2), so it is one of the four copies of its kind: indicator 9p
    beside a 9999p kong is five 9p.  Single-tile special kongs count as the tiles
    they set aside (红中杠 a 7z, 发财杠 a 6z, 癞子杠 and laizi discards the laizi,
    癞子皮杠 the indicator's kind).
    """
    counts = [0] * NUM_KINDS
    counts[rec.winning_tile] += 1
    counts[rec.indicator] += 1
    laizi = rec.laizi
    for st in rec.seats:
        for t in st.hand:
            counts[t] += 1
        for m in st.melds:
            for t in m.tiles:
                counts[t] += 1
        kongs: dict[SpecialKongKind, int] = {
            "red": st.red_kongs, "green": st.green_kongs, "laizi": st.laizi_kongs, "pi": st.pi_kongs}
        for kind, n in kongs.items():
            counts[rec.rules.special_kong_tile(kind, rec.indicator)] += n
        counts[laizi] += st.laizi_discards
    for t, n in enumerate(counts):
        if n <= 4:
            continue
        if t == rec.indicator:
            raise RecordError(
                f"more than four copies of {tile_str(t)} ({n}, the face-up indicator included): "
                "the indicator is out of play, so only three copies of it are in play",
                "too_many_copies_indicator", tile=tile_str(t), count=n)
        raise RecordError(f"more than four copies of {tile_str(t)} ({n}) in the record",
                          "too_many_copies", tile=tile_str(t), count=n)


def parse_json(text: str) -> Any:
    """Decode JSON text; anything undecodable, nesting too deep included, is a RecordError.
    A leading byte-order mark, which some Windows editors write, is ignored (RFC 8259
    allows it), so a record reads the same from a file, standard input or the HTTP API.

    >>> parse_json("[" * 100_000)
    Traceback (most recent call last):
    ...
    wuhan_mahjong.win_record.RecordError: bad JSON: nested too deeply at line 1 column 1
    """
    try:
        return jsontext.loads(text.removeprefix("\ufeff"))
    except json.JSONDecodeError as e:
        raise RecordError(f"bad JSON: {e.msg} at line {e.lineno} column {e.colno}") from None


def load_win_record(text: str) -> WinRecord:
    """Parse JSON text into a :class:`WinRecord` (malformed JSON raises RecordError)."""
    return parse_win_record(parse_json(text))



def dump_win_record(rec: WinRecord) -> dict[str, Any]:
    """The settlement record (JSON-ready) of a :class:`WinRecord`, e.g. one the engine
    built: ``parse_win_record(dump_win_record(rec)) == rec``."""
    seats = []
    for st in rec.seats:
        melds: list[dict[str, Any]] = []
        for m in st.melds:
            meld: dict[str, Any] = {"type": m.type, "tiles": format_tiles(m.tiles)}
            if m.kind:
                meld["kind"] = m.kind
            if m.from_seat is not None:
                meld["from"] = m.from_seat
            melds.append(meld)
        seat: dict[str, Any] = {"hand": format_tiles(st.hand), "melds": melds,
                                "kongs": {"red": st.red_kongs, "green": st.green_kongs,
                                          "laizi": st.laizi_kongs, "pi": st.pi_kongs},
                                "laizi_discards": st.laizi_discards}
        if st.ready is not None:
            seat["ready"] = st.ready
        seats.append(seat)
    out: dict[str, Any] = {"profile": rec.rules.profile, "options": rec.rules.overrides(),
                           "dealer": rec.dealer, "indicator": tile_str(rec.indicator),
                           "winner": rec.winner, "win_by": rec.win_by,
                           "winning_tile": tile_str(rec.winning_tile), "seats": seats}
    if rec.from_seat is not None:
        out["from"] = rec.from_seat
    return out
