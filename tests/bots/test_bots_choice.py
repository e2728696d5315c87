"""Which bot plays the server's bot seats and auto-play (托管): the strongest whose
measured decision time (p99, CPU) fits the think time."""

from __future__ import annotations

from wuhan_mahjong.bots import STRENGTH, best_bot, bot_names
from wuhan_mahjong.server.config import ServerConfig, default_bot


def test_the_strength_table_names_registered_bots_strongest_first() -> None:
    names = [n for n, _ in STRENGTH]
    assert set(names) <= set(bot_names())
    times = [ms for _, ms in STRENGTH]
    assert times == sorted(times, reverse=True)  # a stronger bot is never faster here


def test_the_best_bot_that_fits_the_think_time() -> None:
    slowest, p99 = STRENGTH[0]
    assert best_bot(p99) == slowest
    assert best_bot(p99 - 1) == STRENGTH[1][0]
    assert best_bot(64.0) == "expert"  # its p99 on publication seeds 20261209-11
    assert best_bot(2.0) == "greedy"
    assert best_bot(0.0) == "random"


def test_the_server_default_fits_half_the_bot_delay() -> None:
    delay = ServerConfig().bot_delay
    assert default_bot(delay) == best_bot(delay * 1000 / 2)
    assert default_bot(0.2) == "expert"  # 100 ms
    assert default_bot(0.0) == "greedy"  # the floor
