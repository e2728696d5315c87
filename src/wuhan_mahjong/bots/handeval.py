"""Fast hand evaluation for bots: shanten per target shape and tile acceptance.

:func:`wuhan_mahjong.analysis.shanten` is exact but takes ~75 µs; a bot that
weighs every discard against every drawable tile needs a few hundred such
numbers per decision.  This module computes the same quantity ("the most real
tiles that fit one winning hand", from which shanten follows) from per-suit
vectors that are memoised by the suit's packed counts, and combines the four
suits by a tiny max-plus convolution that is memoised too.  Changing one tile
only touches one suit, so tile acceptance reuses the other three suits' combined
vector (see :class:`Evaluator`).

Targets (the shapes of :func:`wuhan_mahjong.analysis.is_winning_shape`):

``small``  standard shape with a 2/5/8 pair (小胡; also the shape of 全求人)
``qys``    one suit, any pair (清一色), only when every meld is of that suit
``pph``    all triplets and a pair (碰碰胡), only when every meld is a pung (and the
           rules have the hand: option ``pengpenghu``)
``fys``    all honours (风一色, no structure), only when every meld is honours
``jys``    all suited 2/5/8 (将一色, no structure), only when every meld is 2/5/8

A vector ``v`` has 10 entries: ``v[s + 5 * p]`` is the most tiles kept in
``s`` (partial) sets and ``p`` (partial) pairs, monotone in ``s`` and ``p``.

>>> from wuhan_mahjong.tiles import parse_tiles, counts_of
>>> ev = Evaluator(counts_of(parse_tiles("123m456p789s11155m")), wilds=0, melds=(), must=(33,))
>>> ev.shanten("small"), ev.best()[0]
(-1, -1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from ..meld import Meld
from ..shape import MEMO_LIMIT
from ..tiles import NUM_KINDS, is_258, is_honour

Vec = tuple[int, int, int, int, int, int, int, int, int, int]
TARGETS = ("small", "qys", "pph", "fys", "jys")
_NEG = -99

# pair predicates per suit slot
_ANY, _258, _NONE = 0, 1, 2


_NEGV: Vec = (0, _NEG, _NEG, _NEG, _NEG, _NEG, _NEG, _NEG, _NEG, _NEG)
_ZERO: Vec = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


@lru_cache(maxsize=MEMO_LIMIT)
def _suit_vec(counts: tuple[int, ...], runs: bool, pair: int) -> Vec:
    """Most tiles of one suit kept in at most s partial sets and p partial pairs.

    Dynamic programming on the first tile kind present: each copy of it is
    dropped, or starts a partial triplet, a partial run (runs only) or the pair.
    Memoised on the remaining counts, so suffixes are shared between hands.
    """
    i = 0
    n = len(counts)
    while i < n and not counts[i]:
        i += 1
    if i == n:
        return _ZERO
    c = counts[i]
    lst = list(counts)
    lst[i] = c - 1
    best = list(_suit_vec(tuple(lst), runs, pair))  # drop one copy
    for k in (1, 2, 3):
        if c >= k:
            lst[i] = c - k
            v = _suit_vec(tuple(lst), runs, pair)
            for p in (0, 5):
                for s in range(1, 5):
                    x = v[p + s - 1] + k
                    if x > best[p + s]:
                        best[p + s] = x
    if pair == _ANY or (pair == _258 and i % 9 in (1, 4, 7)):
        for k in (1, 2):
            if c >= k:
                lst[i] = c - k
                v = _suit_vec(tuple(lst), runs, pair)
                for s in range(5):
                    x = v[s] + k
                    if x > best[5 + s]:
                        best[5 + s] = x
    lst[i] = c
    if runs:
        for pattern in ((1, 2), (1,), (2,)):
            if i + pattern[-1] < n and all(lst[i + d] for d in pattern):
                lst[i] = c - 1
                for d in pattern:
                    lst[i + d] -= 1
                v = _suit_vec(tuple(lst), runs, pair)
                add = 1 + len(pattern)
                for p in (0, 5):
                    for s in range(1, 5):
                        x = v[p + s - 1] + add
                        if x > best[p + s]:
                            best[p + s] = x
                lst[i] = c
                for d in pattern:
                    lst[i + d] += 1
    for s in range(5):  # a pair slot may stay empty
        if best[s] > best[5 + s]:
            best[5 + s] = best[s]
    return (best[0], best[1], best[2], best[3], best[4],
            best[5], best[6], best[7], best[8], best[9])


def _build_vectors(c: tuple[int, ...], suit: int) -> tuple[Vec, Vec, Vec]:
    """:func:`suit_vectors` of the counts ``c`` of one suit, built from memoised parts
    rather than by a search of the whole suit (:func:`_suit_vec`, which a test holds them
    to): a suit no memo has seen costs a few lookups.

    * With runs, a suit splits into blocks: kinds held whose neighbours are at most two
      apart.  Two kinds three or more apart share no partial set, so the suit keeps what
      its blocks keep together (:func:`combine`), and a block comes back in many suits.
      A block keeps its place modulo 3 (leading empty kinds), which decides its 2/5/8
      pairs (:func:`_block_vectors`).
    * Without runs (triplets only, and the honours) the kinds are interchangeable: the
      vector is that of the counts held, in any order (:func:`_pung_vector`)."""
    held = tuple(sorted(x for x in c if x))
    if suit == 3:
        v = _pung_vector(held, _ANY)
        return v, _pung_vector(held, _NONE), v
    n = len(c)
    std: Vec | None = None
    std258 = _ZERO
    i = 0
    while i < n:
        if not c[i]:
            i += 1
            continue
        end = i  # the block's last kind held
        k = i + 1
        while k < n and k - end <= 2:
            if c[k]:
                end = k
            k += 1
        va, vb = _block_vectors((0,) * (i % 3) + c[i:end + 1])
        if std is None:
            std, std258 = va, vb
        else:
            std, std258 = combine(std, va), combine(std258, vb)
        i = end + 1
    return (_ZERO, _ZERO, _ZERO) if std is None else (std, std258, _pung_vector(held, _ANY))


@lru_cache(maxsize=MEMO_LIMIT)
def _block_vectors(block: tuple[int, ...]) -> tuple[Vec, Vec]:
    """(any pair, 2/5/8 pair) vectors of one block of a suit with runs
    (:func:`_build_vectors`)."""
    return _suit_vec(block, True, _ANY), _suit_vec(block, True, _258)


@lru_cache(maxsize=1024)  # bounded: the multisets of at most 14 tiles in 4s are fewer
def _pung_vector(held: tuple[int, ...], pair: int) -> Vec:
    """The vector without runs of a suit holding the counts ``held`` (sorted, no zeros)."""
    return _suit_vec(held, False, pair)


_COMB: dict[tuple[Vec, Vec], Vec] = {}


def combine(a: Vec, b: Vec) -> Vec:
    """Max-plus convolution of two suit vectors (memoised)."""
    key = (a, b)
    hit = _COMB.get(key)
    if hit is not None:
        return hit
    out = [0] * 10
    for s in range(5):
        b0 = _NEG
        b1 = _NEG
        for i in range(s + 1):
            j = s - i
            x = a[i] + b[j]
            if x > b0:
                b0 = x
            x = a[5 + i] + b[j]
            if x > b1:
                b1 = x
            x = a[i] + b[5 + j]
            if x > b1:
                b1 = x
        out[s] = b0
        out[5 + s] = b1
    res: Vec = (out[0], out[1], out[2], out[3], out[4], out[5], out[6], out[7], out[8], out[9])
    if len(_COMB) >= 2 * MEMO_LIMIT:  # bounded (see shape.MEMO_LIMIT)
        _COMB.clear()
    _COMB[key] = res
    return res


def final(a: Vec, b: Vec, sets: int) -> int:
    """``combine(a, b)[sets + 5]`` without building the whole vector."""
    best = _NEG
    for i in range(sets + 1):
        j = sets - i
        x = a[5 + i] + b[j]
        if x > best:
            best = x
        x = a[i] + b[5 + j]
        if x > best:
            best = x
    return best


def _bars(b: Vec, sets: int, need: int) -> tuple[tuple[int, int], ...]:
    """``final(a, b, sets) >= need`` as bars for ``a``: (entry, least value) pairs, one
    of which ``a`` must clear (:func:`_reaches`), so that many vectors ``a`` are measured
    against one ``b`` without adding ``b`` each time."""
    return tuple(p for i in range(sets + 1)
                 for p in ((5 + i, need - b[sets - i]), (i, need - b[5 + sets - i])))


def _reaches(a: Vec, bars: tuple[tuple[int, int], ...]) -> bool:
    for j, least in bars:  # noqa: SIM110 (a loop: any() over a generator is slower here)
        if a[j] >= least:
            return True
    return False


_SLICES = ((0, 9), (9, 18), (18, 27), (27, 34))
_QYS = ("qys0", "qys1", "qys2")

#: A suit's counts packed in one integer, the memo key of :data:`_SV`: the suit in the
#: low two bits, then a byte a kind.  Adding one tile of kind ``t`` adds ``_STEP[t]``,
#: so an evaluator's what-if queries find a suit's vectors without slicing and hashing a
#: tuple of counts.  An evaluator holds at most ``_MOST`` of a kind (a real hand, four),
#: so that a what-if tile still fits in its byte.
_MOST = 254
_STEP = tuple(1 << (2 + 8 * (t - _SLICES[t // 9 if t < 27 else 3][0])) for t in range(NUM_KINDS))
_SV: dict[int, tuple[Vec, Vec, Vec]] = {}


def _suit_key(counts: Sequence[int], suit: int) -> int:
    lo, hi = _SLICES[suit]
    return suit | int.from_bytes(bytes(counts[lo:hi]), "little") << 2


def _vectors(key: int) -> tuple[Vec, Vec, Vec]:
    """The suit vectors of the packed suit ``key`` (see :data:`_STEP`), memoised."""
    hit = _SV.get(key)
    if hit is not None:
        return hit
    suit = key & 3
    lo, hi = _SLICES[suit]
    res = _build_vectors(tuple((key >> 2).to_bytes(hi - lo, "little")), suit)
    if len(_SV) >= MEMO_LIMIT:  # bounded (see shape.MEMO_LIMIT)
        _SV.clear()
    _SV[key] = res
    return res


def suit_vectors(counts: Sequence[int], suit: int) -> tuple[Vec, Vec, Vec]:
    """(standard any pair, standard 2/5/8 pair, triplets only) vectors of one suit."""
    lo, hi = _SLICES[suit]
    if any(not 0 <= counts[i] <= _MOST + 1 for i in range(lo, hi)):
        raise ValueError(f"suit {suit}: a count out of 0 to {_MOST + 1}")
    return _vectors(_suit_key(counts, suit))


_JYS = frozenset(t for t in range(27) if is_258(t))


@lru_cache(maxsize=1024)  # bounded: a seat's melds and the must-kong tiles of its table
def _allowed(melds: tuple[Meld, ...], must: tuple[int, ...], pengpenghu: bool) -> tuple[str, ...]:
    """The targets these melds leave open (see :class:`Evaluator`), in name order."""
    meld_tiles = [t for m in melds for t in m.tiles]
    suits = {t // 9 for t in meld_tiles}
    allowed = {"small"}
    if pengpenghu and all(m.is_pung for m in melds):
        allowed.add("pph")
    if all(is_honour(t) for t in meld_tiles) and not set(meld_tiles) & set(must):
        allowed.add("fys")
    if all(is_258(t) for t in meld_tiles):
        allowed.add("jys")
    for s in range(3):
        if suits <= {s}:
            allowed.add(f"qys{s}")
    # a tuple in name order: iterating a set of strings would follow the hash seed
    return tuple(sorted(allowed))


@lru_cache(maxsize=64)  # bounded: one entry per set of must-kong tiles
def _fys_tiles(must: tuple[int, ...]) -> frozenset[int]:
    return frozenset(t for t in range(27, NUM_KINDS) if t not in must)


#: :meth:`Evaluator._suit_lowering`'s memo
_LOWERING: dict[tuple[object, ...], tuple[int, ...]] = {}


class Evaluator:
    """Shanten by target for one concealed hand (counts without laizi and must-kong
    tiles), with fast what-if queries that add or remove one tile.

    ``wilds`` is the number of laizi held.  ``melds`` the seat's melds (their
    shape decides which targets are still open).  ``pengpenghu`` is the rule option of
    that name: where 碰碰胡 is no hand (``pengpenghu=False``), all triplets with any
    pair is no target either.
    """

    __slots__ = ("_big", "_pairs_pph", "_pairs_small", "allowed", "counts", "fys_count",
                 "fys_tiles", "jys", "jys_count", "keys", "melds", "must", "others_pph",
                 "others_small", "pengpenghu", "room", "sets", "vecs", "wilds")
    others_small: list[Vec]
    others_pph: list[Vec]
    _pairs_small: tuple[Vec, Vec]
    _pairs_pph: tuple[Vec, Vec]

    def __init__(self, counts: Sequence[int], wilds: int, melds: Iterable[Meld],
                 must: Iterable[int], pengpenghu: bool = True) -> None:
        self.pengpenghu = pengpenghu
        self.counts = list(counts)
        self.must = tuple(must)
        for t in self.must:
            self.counts[t] = 0
        if min(self.counts) < 0 or max(self.counts) > _MOST:
            raise ValueError(f"a tile count out of 0 to {_MOST}")
        self.melds = tuple(melds)
        self.wilds = wilds
        self.sets = 4 - len(self.melds)
        self.room = 14 - 3 * len(self.melds) - wilds
        self.allowed: tuple[str, ...] = _allowed(self.melds, self.must, pengpenghu)
        self.jys = _JYS
        self.fys_tiles = _fys_tiles(self.must)
        self._fill()

    def _fill(self) -> None:
        """What follows from the counts: the suit keys and vectors and the counts of the
        no-structure targets (the counts never change after construction: what-if queries
        work on the keys)."""
        c = self.counts
        self.fys_count = sum(c[27:])  # a must-kong tile's count is 0
        self.jys_count = sum(c[1:27:3])  # 2, 5 and 8 of each suit
        self.keys = [_suit_key(c, s) for s in range(4)]
        self.vecs = [_vectors(k) for k in self.keys]
        self._combine_suits()

    def _combine_suits(self, parent: Evaluator | None = None, suit: int = -1) -> None:
        """What follows from the suit vectors: for each suit, what the other three keep
        together, and the most tiles kept by an open 清一色 of another suit (a what-if tile
        of that suit leaves it as it is).  ``parent``: an evaluator whose vectors differ
        from these in ``suit`` alone (:meth:`with_tile`), whose pairs of suits the other
        pair keeps, and what the other three keep beside ``suit``."""
        if parent is None:
            self._pairs_small = self._pairs(1)
            self._pairs_pph = self._pairs(2)
        else:
            self._pairs_small = self._pair_after(1, parent._pairs_small, suit)
            self._pairs_pph = self._pair_after(2, parent._pairs_pph, suit)
        self.others_small = self._others(
            1, self._pairs_small, None if parent is None else parent.others_small, suit)
        self.others_pph = self._others(
            2, self._pairs_pph, None if parent is None else parent.others_pph, suit)
        sets = self.sets
        allowed = self.allowed
        q0, q1, q2 = (self.vecs[q][0][5 + sets] if _QYS[q] in allowed else _NEG for q in range(3))
        self._big = (max(q1, q2), max(q0, q2), max(q0, q1), max(q0, q1, q2))

    def _pairs(self, which: int) -> tuple[Vec, Vec]:
        """What suits 0 and 1, and suits 2 and 3, keep together (vector ``which``)."""
        v = self.vecs
        return combine(v[0][which], v[1][which]), combine(v[2][which], v[3][which])

    def _pair_after(self, which: int, pairs: tuple[Vec, Vec], suit: int) -> tuple[Vec, Vec]:
        """:meth:`_pairs` from those of an evaluator that differs in ``suit`` alone."""
        v = self.vecs
        if suit < 2:
            return combine(v[0][which], v[1][which]), pairs[1]
        return pairs[0], combine(v[2][which], v[3][which])

    def _others(self, which: int, pairs: tuple[Vec, Vec], kept: list[Vec] | None,
                suit: int) -> list[Vec]:
        """For each suit, what the other three keep together (vector ``which``); ``kept``:
        those of an evaluator that differs in ``suit`` alone, whose entry for ``suit``
        stays."""
        v1, v0, v3, v2 = (self.vecs[q][which] for q in (1, 0, 3, 2))
        p01, p23 = pairs
        return [kept[0] if kept is not None and suit == 0 else combine(v1, p23),
                kept[1] if kept is not None and suit == 1 else combine(v0, p23),
                kept[2] if kept is not None and suit == 2 else combine(p01, v3),
                kept[3] if kept is not None and suit == 3 else combine(p01, v2)]

    # ------------------------------------------------------------------ kept tiles
    def kept(self, target: str) -> int:
        """The most real tiles that fit one hand of ``target`` (capped at the room)."""
        return self._kept_with(target, -1, 0)

    def _kept_with(self, target: str, tile: int, delta: int) -> int:
        """Kept tiles for ``target`` after adding ``delta`` (+1/-1) tiles of kind ``tile``."""
        room = self.room
        s = self.sets
        if target == "small" or target == "pph":
            which = 1 if target == "small" else 2
            others = self.others_small if which == 1 else self.others_pph
            if tile < 0:
                v = self.vecs[0][which]
                k = final(v, others[0], s)
            else:
                suit = tile // 9 if tile < 27 else 3
                v = _vectors(self.keys[suit] + delta * _STEP[tile])[which]
                k = final(v, others[suit], s)
        elif target.startswith("qys"):
            suit = int(target[3])
            if tile >= 0 and (tile // 9 == suit and tile < 27):
                v = _vectors(self.keys[suit] + delta * _STEP[tile])[0]
            else:
                v = self.vecs[suit][0]
            k = v[5 + s]
        elif target == "fys":
            k = self.fys_count
            if tile in self.fys_tiles:
                k += delta
        else:  # jys
            k = self.jys_count
            if tile in self.jys:
                k += delta
        return k if k < room else room

    def shanten(self, target: str = "small") -> int:
        """Shanten for one target (99 when the target is closed by the melds)."""
        if target == "qys":
            return min((self.shanten(f"qys{s}") for s in range(3)), default=99)
        if target not in self.allowed:
            return 99
        return self.room - self.kept(target) - 1

    def targets(self) -> dict[str, int]:
        """Shanten of every open target (``qys0``.. ``qys2`` by suit)."""
        return {t: self.room - self.kept(t) - 1 for t in sorted(self.allowed)}

    def best(self) -> tuple[int, str]:
        """(shanten, target) of the closest target."""
        return min((self.room - self.kept(t) - 1, t) for t in self.allowed)

    def shanten_after(self, tile: int, delta: int, target: str | None = None) -> int:
        """Shanten after adding (+1) or removing (-1) one ``tile``; ``target`` None = best.

        ``ValueError`` for a tile the hand does not hold (the laizi is a wild, not a count):
        a negative count would send the suit search into endless recursion."""
        if tile == -1:
            return self.best()[0] if target is None else self.shanten(target)
        if delta < 0 and self.counts[tile] <= 0:
            raise ValueError(f"the hand holds no tile {tile} to remove")
        if target is not None:
            if target not in self.allowed:
                return 99
            return self.room - self._kept_with(target, tile, delta) - 1
        best = self._best_kept(tile, delta, 99)
        room = self.room
        return room - (best if best < room else room) - 1

    def _best_kept(self, tile: int, delta: int, need: int) -> int:
        """The most tiles kept by any open target after adding ``delta`` (+1/-1) of kind
        ``tile`` (not capped at the room), or, as soon as one target keeps ``need`` or
        more, that target's count: what a question "does some target reach ``need``"
        asks (99: the true maximum)."""
        s = self.sets
        suit = tile // 9 if tile < 27 else 3
        vs = _vectors(self.keys[suit] + delta * _STEP[tile])
        best = final(vs[1], self.others_small[suit], s)
        if best >= need:
            return best
        allowed = self.allowed
        if len(allowed) == 1:
            return best
        if "pph" in allowed:
            k = final(vs[2], self.others_pph[suit], s)
            if k > best:
                best = k
        if suit < 3 and _QYS[suit] in allowed:
            k = vs[0][5 + s]
            if k > best:
                best = k
        k = self._big[suit]
        if k > best:
            best = k
        if "fys" in allowed:
            k = self.fys_count + (delta if tile in self.fys_tiles else 0)
            if k > best:
                best = k
        if "jys" in allowed:
            k = self.jys_count + (delta if tile in _JYS else 0)
            if k > best:
                best = k
        return best

    def acceptance(self, unseen: Sequence[int], laizi: int, target: str | None = None,
                   current: int | None = None) -> tuple[int, int]:
        """(tiles, kinds) that lower the shanten of this 3n+1 hand, counting unseen copies.

        The laizi always counts (one more wild), as long as any copy is unseen.
        """
        if current is None:
            current = self.shanten_after(-1, 0, target)
        now = current
        if target is None:
            kinds = self._lowering(unseen, laizi, now)
            return sum(unseen[t] for t in kinds), len(kinds)
        return self._count(unseen, laizi, lambda t: self.shanten_after(t, 1, target) < now)

    def acceptance_any(self, unseen: Sequence[int], laizi: int,
                       targets: Sequence[str]) -> tuple[int, int]:
        """(tiles, kinds) that bring at least one of ``targets`` closer (each from its own
        shanten), counting unseen copies; a kind that helps two targets counts once.

        A hand that keeps two big hands open at the same distance (风一色 and 碰碰胡, say)
        takes more tiles than either alone, which the acceptance of one target misses."""
        current = [(tg, self.shanten(tg)) for tg in targets]
        return self._count(unseen, laizi, lambda t: any(
            self.shanten_after(t, 1, tg) < sh for tg, sh in current))

    def acceptance_kinds(self, unseen: Sequence[int], laizi: int,
                         current: int | None = None) -> tuple[int, ...]:
        """The kinds :meth:`acceptance` counts, in tile order: what a discard puzzle
        (``bots/puzzles.py``) shows as the tiles that help."""
        if current is None:
            current = self.shanten_after(-1, 0)
        return self._lowering(unseen, laizi, current)

    def _lowering(self, unseen: Sequence[int], laizi: int, now: int) -> tuple[int, ...]:
        """``self._kinds(unseen, laizi, lambda t: self.shanten_after(t, 1) < now)``, the
        kinds that bring the best target below ``now``, found suit by suit
        (:meth:`_suit_lowering`); a test checks it against the definition over many
        hands."""
        room = self.room
        need = room - now
        must = self.must
        if need > room:  # nothing lowers a shanten below -1 (the laizi still counts)
            return tuple(t for t in range(NUM_KINDS) if unseen[t] and t == laizi and t not in must)
        out: list[int] = []
        for q in range(4):  # each suit's kinds in tile order, the suits in order
            kinds = self._suit_lowering(q, need)
            lo, hi = _SLICES[q]
            if lo <= laizi < hi and laizi not in kinds:
                kinds = tuple(sorted((*kinds, laizi)))
            out.extend(t for t in kinds if unseen[t] and t not in must)
        return tuple(out)

    def _suit_lowering(self, q: int, need: int) -> tuple[int, ...]:
        """The kinds of suit ``q`` one more of which lets some open target keep ``need``
        tiles (the must-kong tiles aside: they are never asked).  That depends only on
        the suit's counts and on what the other suits and the other targets keep, the
        key of a memo (:data:`_LOWERING`) that two evaluators share whenever those agree,
        as they mostly do between the hands a bot weighs in one decision: pure, so its
        answer never depends on which hands were asked before."""
        allowed = self.allowed
        pph = "pph" in allowed
        key = (self.keys[q], self.sets, need, self.others_small[q],
               self.others_pph[q] if pph else None, q < 3 and _QYS[q] in allowed, self._big[q],
               self.fys_count if "fys" in allowed else None,
               self.jys_count if "jys" in allowed else None)
        hit = _LOWERING.get(key)
        if hit is not None:
            return hit
        _, s, _, osmall, opph, qys, big, fys, jys = key
        small_bars = _bars(osmall, s, need)
        pph_bars = _bars(opph, s, need) if opph is not None else ()
        out = []
        lo, hi = _SLICES[q]
        base = self.keys[q]
        for t in range(lo, hi):
            if big >= need or (fys is not None and fys + (q == 3) >= need) or (
                    jys is not None and jys + (t in _JYS) >= need):
                out.append(t)
                continue
            vs = _vectors(base + _STEP[t])
            if (_reaches(vs[1], small_bars) or (qys and vs[0][5 + s] >= need)
                    or (pph_bars and _reaches(vs[2], pph_bars))):
                out.append(t)
        res = tuple(out)
        if len(_LOWERING) >= MEMO_LIMIT:  # bounded (see shape.MEMO_LIMIT)
            _LOWERING.clear()
        _LOWERING[key] = res
        return res

    def _kinds(self, unseen: Sequence[int], laizi: int,
               improves: Callable[[int], bool]) -> tuple[int, ...]:
        """The unseen kinds that ``improves`` accepts, the laizi always (one more wild) and
        the must-kong tiles never (they cannot stay in the hand)."""
        must = self.must
        return tuple(t for t in range(NUM_KINDS)
                     if unseen[t] and t not in must and (t == laizi or improves(t)))

    def _count(self, unseen: Sequence[int], laizi: int,
               improves: Callable[[int], bool]) -> tuple[int, int]:
        """(tiles, kinds) of :meth:`_kinds`."""
        kinds = self._kinds(unseen, laizi, improves)
        return sum(unseen[t] for t in kinds), len(kinds)

    def with_tile(self, tile: int, delta: int) -> Evaluator:
        """A new evaluator with one tile added or removed (``ValueError`` for a tile the
        hand does not hold)."""
        if delta < 0 and self.counts[tile] <= 0:
            raise ValueError(f"the hand holds no tile {tile} to remove")
        if delta > 0 and self.counts[tile] >= _MOST:
            raise ValueError(f"a tile count out of 0 to {_MOST}")
        ev = Evaluator.__new__(Evaluator)  # the same melds and rules: only the counts change
        ev.allowed = self.allowed
        ev.fys_tiles = self.fys_tiles
        ev.jys = self.jys
        ev.melds = self.melds
        ev.must = self.must
        ev.pengpenghu = self.pengpenghu
        ev.room = self.room
        ev.sets = self.sets
        ev.wilds = self.wilds
        ev.counts = list(self.counts)
        ev.keys = list(self.keys)
        ev.vecs = list(self.vecs)
        ev.fys_count = self.fys_count
        ev.jys_count = self.jys_count
        if tile not in self.must:  # a must-kong tile never counts (see __init__)
            ev.counts[tile] += delta
            suit = tile // 9 if tile < 27 else 3  # only this suit changes
            ev.keys[suit] += delta * _STEP[tile]
            ev.vecs[suit] = _vectors(ev.keys[suit])
            if tile in self.fys_tiles:
                ev.fys_count += delta
            elif tile in _JYS:
                ev.jys_count += delta
        ev._combine_suits(self, tile // 9 if tile < 27 else 3)
        return ev


def hand_counts(tiles: Iterable[int], laizi: int) -> tuple[list[int], int]:
    """(counts without the laizi, number of laizi)."""
    c = [0] * NUM_KINDS
    w = 0
    for t in tiles:
        if t == laizi:
            w += 1
        else:
            c[t] += 1
    return c, w
