"""Settlement of a won hand: docs/RULES.md §17, in the order of §17.13.

``payment(L) = base × M(W) × M(L)`` for each loser L, where M(p) is the
product of player p's own factors (openings, kongs, special kongs, laizi
discards, dealer, 硬胡, 自摸, 放冲).  Then the minimum-score tests on the raw
amounts, the caps (封顶, contract cap), 金顶 / 光明顶 and contracting (承包).
Arithmetic is exact (:class:`fractions.Fraction`).

>>> from wuhan_mahjong.rules import get_rules
>>> from wuhan_mahjong.tiles import parse_tiles, parse_tile
>>> from wuhan_mahjong.meld import Meld
>>> t = lambda s: tuple(parse_tiles(s))
>>> seats = (SeatState(), SeatState(t("456p678s5m"), (Meld("chi", t("234m"), 0),
...          Meld("peng", t("777s"), 3))), SeatState(melds=(Meld("kong", t("8888p"), 0,
...          "direct"),)), SeatState())
>>> rec = WinRecord(get_rules(), dealer=0, indicator=parse_tile("9p"), winner=1,
...                 win_by="discard", from_seat=2, winning_tile=parse_tile("5m"), seats=seats)
>>> s = settle(rec)
>>> s.base, [int(p.amount) for p in s.payments], s.deltas
(1, [16, 64, 8], (-16, 88, -64, -8))
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction

from .analysis import (
    BIG_HAND_NAMES,
    SELF_DRAWN,
    NotAWin,
    Reading,
    Refusal,
    is_ready,
    readings,
    winning_readings,
)
from .meld import Meld, opening_count
from .rules import Rules
from .tiles import is_258, tile_str
from .win_record import SeatState, WinRecord


@dataclass(frozen=True)
class Factor:
    """One multiplier of one player: ``value ** count``."""

    id: str
    zh: str
    en: str
    seat: int
    value: Fraction
    count: int = 1

    @property
    def total(self) -> Fraction:
        return self.value**self.count

    def label(self) -> str:
        v = _num(self.value)
        return f"×{v} {self.zh}" + (f" ×{self.count}" if self.count > 1 else "")

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "zh": self.zh, "en": self.en, "seat": self.seat,
                "value": _num(self.value), "count": self.count, "total": _num(self.total),
                "label": self.label()}


@dataclass(frozen=True)
class Payment:
    """One loser's share: who owes it, who pays it (a contractor may), and why."""

    loser: int
    payer: int
    raw: Fraction
    amount: Fraction
    limit: str  # "none", "cap", "contract_cap", "golden", "bright"
    factors: tuple[Factor, ...]


@dataclass(frozen=True)
class Settlement:
    """The result of :func:`settle`."""

    record: WinRecord
    reading: Reading
    hands: tuple[str, ...]
    base: int
    multipliers: tuple[Fraction, ...]
    factors: tuple[tuple[Factor, ...], ...]
    payments: tuple[Payment, ...]
    contractor: int | None
    contract_reason: str | None
    golden_cap: bool
    deltas: tuple[int, ...]
    hypothetical: dict[str, object] | None = field(default=None)

    @property
    def total(self) -> int:
        return self.deltas[self.record.winner]

    def to_json(self) -> dict[str, object]:
        rec = self.record
        return {
            "valid": True,
            "profile": rec.rules.profile,
            "indicator": tile_str(rec.indicator),
            "laizi": tile_str(rec.laizi),
            "winner": rec.winner,
            "win_by": rec.win_by,
            "hands": list(self.hands),
            "hands_zh": [BIG_HAND_NAMES[h][0] for h in self.hands],
            "small": not self.hands,
            "hard": self.reading.hard,
            "base": self.base,
            "multipliers": [_num(m) for m in self.multipliers],
            "factors": [[f.to_json() for f in fs] for fs in self.factors],
            "payments": [
                {"payer": p.payer, "loser": p.loser, "raw": _num(p.raw), "amount": _int(p.amount),
                 "limit": p.limit, "factors": [f.to_json() for f in p.factors]}
                for p in self.payments
            ],
            "contractor": self.contractor,
            "contract_reason": self.contract_reason,
            "contract_reason_zh": CONTRACT_REASONS[self.contract_reason][0] if self.contract_reason else None,
            "contract_reason_en": CONTRACT_REASONS[self.contract_reason][1] if self.contract_reason else None,
            "golden_cap": self.golden_cap,
            "deltas": list(self.deltas),
            "arrangement": [g.to_json() for g in self.reading.groups],
            "laizi_as": [tile_str(t) for t in self.reading.laizi_as],
            "hypothetical": self.hypothetical,
        }


CONTRACT_REASONS: dict[str, tuple[str, str]] = {
    "robbed_kong": ("抢杠：被抢杠者包牌", "robbed kong: the konger pays for everyone"),
    "third_feeder": ("清一色等第三次开口的供牌者包牌",
                     "fed the third opening of a one-colour hand"),
    "quanqiuren_jiang": ("放将给全求人者包牌", "dealt a 2/5/8 (将) into 全求人"),
    "quanqiuren_not_ready": ("未听牌放冲全求人者包牌", "dealt into 全求人 while not ready"),
}
"""Why someone contracts (承包): code -> (Chinese, English)."""


def _num(x: Fraction) -> int | float:
    return int(x) if x.denominator == 1 else float(x)


def _int(x: Fraction) -> int:
    """Round half up (only needed if an operator allows odd stakes; see docs)."""
    return int(x) if x.denominator == 1 else int((x + Fraction(1, 2)) // 1)


# ---------------------------------------------------------------------------


def big_hand_base(hands: Sequence[str], rules: Rules) -> int:
    """1 for a small hand; 10 for one big hand, combined per the profile (§17.5)."""
    n = sum(rules.fengyise_big_hands if h == "fengyise" else 1 for h in hands)
    if n == 0:
        return 1
    if rules.big_hand_accumulation == "multiply":
        return 10 << (n - 1)
    return 10 * n


HARD_WIN_FACTOR = Fraction(2)
"""硬胡 (a hard win: no laizi stands in for another tile): ×2 on the winner's side in every
profile, small and big hands alike (§17.3, §17.4).  The one factor of a winner that his
melds and kongs do not show, so the bots' opponent model asks it here too."""


def win_way_factor(big: bool) -> Fraction:
    """The factor of how the hand was won, 自摸 on the winner or 放冲 on the discarder:
    ×2, a big hand's ×1.5."""
    return Fraction(3, 2) if big else Fraction(2)


def seat_factors(
    seat: int, state: SeatState, rules: Rules, dealer: int, *, big: bool,
    hard: bool = False, self_drawn: bool = False, dealt_in: bool = False,
) -> tuple[Factor, ...]:
    """Every factor that belongs to ``seat`` (Project decision 6)."""
    out: list[Factor] = []
    two = Fraction(2)
    n_open = opening_count(state.melds, rules.direct_kong_opens)
    if n_open:
        if rules.per_opening:
            out.append(Factor("opening", "口口翻", "each opening", seat, two, n_open))
        else:
            out.append(Factor("opening", "开口", "opened", seat, two))
    exposed = sum(1 for m in state.melds if m.kind in ("direct", "added"))
    concealed = sum(1 for m in state.melds if m.kind == "concealed")
    if exposed:
        out.append(Factor("exposed_kong", "明杠", "exposed kong", seat, two, exposed))
    if concealed:
        out.append(Factor("concealed_kong", "暗杠", "concealed kong", seat, Fraction(4), concealed))
    specials = (
        ("red_kong", "红中杠", "red dragon kong", state.red_kongs, rules.special_kong_factor),
        ("green_kong", "发财杠", "green dragon kong", state.green_kongs, rules.special_kong_factor),
        ("laizi_kong", "癞子杠", "laizi kong", state.laizi_kongs, rules.laizi_kong_factor),
        ("pi_kong", "癞子皮杠", "indicator kong", state.pi_kongs, rules.pi_kong_factor),
        ("laizi_discard", "丢癞子", "laizi discarded", state.laizi_discards,
         rules.laizi_discard_factor),
    )
    for fid, zh, en, count, value in specials:
        if count:
            out.append(Factor(fid, zh, en, seat, Fraction(value), count))
    if not big and seat == dealer:
        out.append(Factor("dealer", "庄家", "dealer", seat, two))
    if hard:
        out.append(Factor("hard", "硬胡", "hard win", seat, HARD_WIN_FACTOR))
    if self_drawn:
        out.append(Factor("self_draw", "自摸", "self-drawn", seat, win_way_factor(big)))
    if dealt_in:
        out.append(Factor("deal_in", "放冲", "dealt in", seat, win_way_factor(big)))
    return tuple(out)


def _product(fs: Sequence[Factor]) -> Fraction:
    m = Fraction(1)
    for f in fs:
        m *= f.total
    return m


@dataclass(frozen=True)
class _Candidate:
    reading: Reading
    hands: tuple[str, ...]
    base: int
    factors: tuple[tuple[Factor, ...], ...]
    raws: dict[int, Fraction]
    scorer: int  # whose hand the base and M(W) come from (the konger, in 杠进杠出)
    scorer_reading: Reading | None = None  # the konger's hypothetical 杠开


def settle(rec: WinRecord) -> Settlement:
    """Settle a won hand.  Raises :class:`NotAWin` when the record is not a legal win."""
    rules = rec.rules
    w = rec.winner
    state = rec.seats[w]
    concealed = [*state.hand, rec.winning_tile]
    legal = readings(concealed, state.melds, rec.laizi, rules, rec.win_by, rec.winning_tile)
    konger_bloom = rec.win_by == "rob_kong" and rules.robbing_settlement == "konger_bloom"
    candidates = [_konger_bloom(rec, r) if konger_bloom else _score(rec, r) for r in legal]
    failures = []
    best: Settlement | None = None
    for cand in candidates:
        why = minimum_failure(list(cand.raws.values()), rules)
        if why:
            failures.append(why)
            continue
        s = _finish(rec, cand)
        key = (s.total, sum(cand.raws.values()), s.reading.hard, len(s.hands))
        if best is None or key > (best.total, sum(p.raw for p in best.payments),
                                  best.reading.hard, len(best.hands)):
            best = s
    if best is None:
        raise NotAWin(failures[0])
    return best


def _score(rec: WinRecord, reading: Reading) -> _Candidate:
    rules = rec.rules
    w = rec.winner
    big = reading.is_big
    factors = []
    for seat, st in enumerate(rec.seats):
        if seat == w:
            factors.append(seat_factors(seat, st, rules, rec.dealer, big=big, hard=reading.hard,
                                        self_drawn=rec.win_by in SELF_DRAWN))
        else:
            factors.append(seat_factors(seat, st, rules, rec.dealer, big=big,
                                        dealt_in=rec.win_by == "discard" and seat == rec.from_seat))
    base = big_hand_base(reading.big_hands, rules)
    mw = _product(factors[w])
    raws = {seat: base * mw * _product(factors[seat]) for seat in range(4) if seat != w}
    return _Candidate(reading, reading.big_hands, base, tuple(factors), raws, w)


def _konger_bloom(rec: WinRecord, robber_reading: Reading) -> _Candidate:
    """杠进杠出: score the robbed konger's hypothetical 杠开 (Project decision 15)."""
    rules = rec.rules
    k = rec.from_seat
    assert k is not None
    kstate = rec.seats[k]
    melds = list(kstate.melds)
    for i, m in enumerate(melds):
        if m.type == "peng" and m.tiles[0] == rec.winning_tile:
            melds[i] = Meld("kong", (rec.winning_tile,) * 4, m.from_seat, "added")
            break
    else:  # validated when the record is read
        raise NotAWin(Refusal("the robbed player has no peng of the robbed tile",
                              "no_peng_to_rob"))
    kong_state = replace(kstate, melds=tuple(melds))
    best: tuple[int, Reading] | None = None
    own = [*kstate.hand, *(t for m in melds for t in m.tiles)]
    for t in range(34):
        if own.count(t) >= 4:  # e.g. the kong's own tile: no fifth copy to draw
            continue
        for r in winning_readings([*kstate.hand, t], melds, rec.laizi, rules, "kong_bloom", t):
            value = big_hand_base(r.big_hands, rules) * (int(HARD_WIN_FACTOR) if r.hard else 1)
            if best is None or value > best[0]:
                best = (value, r)
    if best is not None:
        hyp = best[1]
    else:
        # not ready: still scored as his big-hand 杠开 (hard unless he holds a laizi)
        hyp = Reading(hard=rec.laizi not in kstate.hand, big_hands=("gangshanghua",))
    factors = []
    for seat, st in enumerate(rec.seats):
        if seat == k:
            factors.append(seat_factors(seat, kong_state, rules, rec.dealer, big=True,
                                        hard=hyp.hard, self_drawn=True))
        else:
            factors.append(seat_factors(seat, st, rules, rec.dealer, big=True))
    base = big_hand_base(hyp.big_hands, rules)
    mk = _product(factors[k])
    raws = {seat: base * mk * _product(factors[seat]) for seat in range(4) if seat != k}
    return _Candidate(robber_reading, robber_reading.big_hands, base, tuple(factors), raws, k, hyp)


def minimum_failure(amounts: Sequence[Fraction], rules: Rules) -> Refusal | None:
    """Why raw per-loser amounts fail the minimum score (docs/RULES.md §17.8), or ``None``.

    The one place the rule lives: the settlement refuses such a win and bots
    ask it before chasing one."""
    if rules.min_score_one_loser and max(amounts) < rules.min_score_one_loser:
        return Refusal(f"minimum score not reached: no loser owes {rules.min_score_one_loser} "
                       f"(highest {_num(max(amounts))})", "minimum_one_loser",
                       minimum=rules.min_score_one_loser, highest=_num(max(amounts)))
    if rules.min_score_every_loser and min(amounts) < rules.min_score_every_loser:
        return Refusal(f"minimum score not reached: every loser must owe "
                       f"{rules.min_score_every_loser} (lowest {_num(min(amounts))})",
                       "minimum_every_loser", minimum=rules.min_score_every_loser,
                       lowest=_num(min(amounts)))
    return None


#: The one-suit contract (docs/RULES.md §17.10): the seat that fed a 清一色 (or, by the
#: profile, 将一色 / 风一色) winner his third opening pays for all three losers.
CONTRACT_OPENING = 3


def _contract(rec: WinRecord, cand: _Candidate) -> tuple[int | None, str | None]:
    """Who contracts (承包), if anyone, and why (docs/RULES.md §17.10, decision 15/16)."""
    rules = rec.rules
    w = rec.winner
    if rec.win_by == "rob_kong":
        return rec.from_seat, "robbed_kong"
    hands = cand.hands
    if any(h in rules.one_suit_contract_hands for h in hands):
        openings = [m for m in rec.seats[w].melds if m.is_opening(rules.direct_kong_opens)]
        if len(openings) >= CONTRACT_OPENING:
            feeder = openings[CONTRACT_OPENING - 1].from_seat
            if feeder is not None and feeder != w:
                return feeder, "third_feeder"
    if "quanqiuren" in hands and rec.win_by == "discard" and rec.from_seat is not None:
        d = rec.from_seat
        st = rec.seats[d]

        def ready() -> bool:
            return st.ready if st.ready is not None else is_ready(
                st.hand, st.melds, rec.laizi, rules)

        if quanqiuren_liable(rules, rec.winning_tile, ready):
            jiang = rules.quanqiuren_contract == "jiang_discard"
            return d, "quanqiuren_jiang" if jiang else "quanqiuren_not_ready"
    return None, None


def quanqiuren_liable(rules: Rules, tile: int, ready: Callable[[], bool]) -> bool:
    """Whether the discarder of ``tile`` that a 全求人 wins on contracts for the hand
    (docs/RULES.md §17.10, ``quanqiuren_contract``): for throwing a 将 (a 2/5/8), or for not
    being ready (Project decision 16: some tile gives him a legal win, the minimum score
    aside).  ``ready`` is asked only where the profile needs it: a bot weighing a discard
    passes its own reading of its hand after it.

    >>> from wuhan_mahjong.rules import get_rules
    >>> from wuhan_mahjong.tiles import parse_tile
    >>> quanqiuren_liable(get_rules("yuanhang"), parse_tile("5p"), lambda: True)
    True
    >>> quanqiuren_liable(get_rules("bianfeng"), parse_tile("5p"), lambda: True)
    False
    """
    if rules.quanqiuren_contract == "jiang_discard":
        return is_258(tile)
    return not ready()


def loser_caps(rules: Rules, base: int) -> tuple[int, int, int, int]:
    """(封顶, contract cap, 金顶, 光明顶): what one loser pays at most in a hand of ``base``
    (1 for a small hand, the big-hand base otherwise), in the opening mode in force and
    in table stakes or hand bases as ``cap_unit`` says; 0 is "no such cap" (docs/RULES.md
    §17.9).

    >>> from wuhan_mahjong.rules import get_rules
    >>> loser_caps(get_rules("yuanhang"), 10)
    (300, 400, 400, 0)
    >>> loser_caps(get_rules("yuanhang", {"cap_unit": "hand_base"}), 10)
    (3000, 4000, 4000, 0)
    """
    unit = 1 if rules.cap_unit == "stake" else base
    cap, contract_cap, golden, bright = rules.caps()
    return cap * unit, contract_cap * unit, golden * unit, bright * unit


def cap_amounts(raws: Mapping[int, Fraction], never_opened: Mapping[int, bool], rules: Rules,
                base: int, contracted: bool = False) -> dict[int, tuple[Fraction, str]]:
    """The caps step of the settlement (docs/RULES.md §17.9, §17.13): each loser's raw amount
    to (what he owes, the limit that set it: ``none``, ``cap``, ``contract_cap``,
    ``golden`` or ``bright``).  金顶 when every raw amount reaches (or exceeds, by
    ``golden_trigger``) the cap: each loser then owes the golden cap, and one who
    ``never_opened`` the 光明顶 where the profile has it.  With a contractor
    (``contracted``) the contract cap replaces the cap per share.

    >>> from wuhan_mahjong.rules import get_rules
    >>> r = get_rules("yuanhang")
    >>> cap_amounts({1: Fraction(512), 2: Fraction(64), 3: Fraction(300)},
    ...             {1: False, 2: True, 3: False}, r, 1)[1]
    (Fraction(300, 1), 'cap')
    >>> sorted(a for a, _ in cap_amounts({1: Fraction(512), 2: Fraction(300), 3: Fraction(999)},
    ...                                  {1: False, 2: True, 3: False}, r, 1).values())
    [Fraction(400, 1), Fraction(400, 1), Fraction(400, 1)]
    """
    cap, contract_cap, gold, bright = loser_caps(rules, base)
    golden = bool(cap and gold) and all(
        (r >= cap if rules.golden_trigger == "reach" else r > cap) for r in raws.values())
    out: dict[int, tuple[Fraction, str]] = {}
    for loser, raw in raws.items():
        if golden:
            if bright and never_opened[loser]:
                out[loser] = (Fraction(bright), "bright")
            else:
                out[loser] = (Fraction(gold), "golden")
            continue
        lim = contract_cap if contracted else cap
        if lim and raw > lim:
            out[loser] = (Fraction(lim), "contract_cap" if contracted else "cap")
        else:
            out[loser] = (raw, "none")
    return out


def _finish(rec: WinRecord, cand: _Candidate) -> Settlement:
    rules = rec.rules
    w = rec.winner
    contractor, reason = _contract(rec, cand)
    never_opened = {loser: opening_count(rec.seats[loser].melds, rules.direct_kong_opens) == 0
                    for loser in cand.raws}
    capped = cap_amounts(cand.raws, never_opened, rules, cand.base, contractor is not None)
    golden = any(limit in ("golden", "bright") for _, limit in capped.values())
    payments = []
    scorer = cand.scorer
    base_factor = Factor("base", "大胡" if cand.hands else "小胡",
                         "big-hand base" if cand.hands else "small-hand base",
                         scorer, Fraction(cand.base))
    for loser, raw in cand.raws.items():
        amount, limit = capped[loser]
        fs = (base_factor, *cand.factors[scorer], *cand.factors[loser])
        payer = contractor if contractor is not None else loser
        payments.append(Payment(loser, payer, raw, amount, limit, fs))
    deltas = [0, 0, 0, 0]
    for p in payments:
        deltas[p.payer] -= _int(p.amount)
        deltas[w] += _int(p.amount)
    multipliers = tuple(_product(fs) for fs in cand.factors)
    hyp = None
    if cand.scorer_reading is not None:
        hyp = {"seat": scorer, "hands": list(cand.scorer_reading.big_hands),
               "hard": cand.scorer_reading.hard, "base": cand.base,
               "note": "杠进杠出: the konger's hypothetical 杠开, paid by him to the robber"}
    return Settlement(rec, cand.reading, cand.hands, cand.base, multipliers, cand.factors,
                      tuple(payments), contractor, reason, golden, tuple(deltas), hyp)

