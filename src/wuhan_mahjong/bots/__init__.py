"""Bots: policies that see only a seat view (see :mod:`wuhan_mahjong.bots.base`)."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot, NoLegalAction, RandomBot, legal_actions

_REGISTRY: dict[str, Callable[[int | None], Bot]] = {
    "random": lambda seed: RandomBot(seed),
}


def _greedy(seed: int | None) -> Bot:
    from .greedy import GreedyBot

    return GreedyBot(seed)


def _expert(seed: int | None) -> Bot:
    from .expert import ExpertBot

    return ExpertBot(seed)


def _search(seed: int | None) -> Bot:
    from .search import SearchBot

    return SearchBot(seed)


_REGISTRY["greedy"] = _greedy
_REGISTRY["expert"] = _expert
_REGISTRY["search"] = _search


#: The shipped policies from strongest to weakest (docs/bots.md, Results), with the
#: 99th percentile of their decision time in CPU milliseconds as measured there (the
#: slowest profile): :func:`best_bot` picks from it.  ``search`` (p99 200 ms) is not
#: listed: its time would fit the server's bot seats (400 ms of think time; they decide
#: off the event loop, ``server/bot_worker.py``), but it has not been measured against
#: the expert head to head, and against greedy it gained less than the expert did in
#: yuanhang and bianfeng (+17.7 / +15.2 against +23.6 / +20.0 points per hand, other
#: seeds) and more only in laizishanzhuang (+7.6 against +0.4): docs/bots.md.
STRENGTH: tuple[tuple[str, float], ...] = (
    ("expert", 64.0),
    ("greedy", 2.0),
    ("random", 0.1),
)


def best_bot(think_ms: float) -> str:
    """The strongest registered policy whose decisions fit in ``think_ms`` milliseconds
    (their measured p99 in CPU time, see :data:`STRENGTH`); ``random`` if none does.
    The server's bot seats and auto-play (托管) use it with their think time."""
    for name, p99 in STRENGTH:
        if name in _REGISTRY and p99 <= think_ms:
            return name
    return "random"


def register(name: str, factory: Callable[[int | None], Bot]) -> None:
    """Make a policy available by name (``get_bot``, the arena, the server)."""
    _REGISTRY[name] = factory


def bot_names() -> list[str]:
    return sorted(_REGISTRY)


def get_bot(name: str, seed: int | None = None) -> Bot:
    """A fresh bot of the named policy; ``seed`` makes it deterministic."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise ValueError(f"unknown bot '{name}' (choose from {', '.join(bot_names())})") from None
    return factory(seed)


__all__ = ["STRENGTH", "Bot", "NoLegalAction", "RandomBot", "best_bot", "bot_names", "get_bot",
           "legal_actions", "register"]
