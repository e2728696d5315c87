"""Quick chat at the table, and the bots' names.

Players at a table may send a quick phrase (Wuhan sayings) or an emote, chosen
from fixed lists by id: there is no free text, so nothing needs moderating.  The
client shows each id in the player's language (``web/i18n.js``: ``chat.phrase.*``
and ``chat.emote.*``; a web test checks every id here has both).  Each account
may say a phrase at most every few seconds (a token bucket, ``rate_limited`` with
``reason: chat`` beyond it); muting a player is the client's choice.

On a cluster, that bucket is already counted over every node, with no Redis: only a
player seated at a table may chat, an account sits at one table at a time, and every
message of a socket held by another node is relayed to the node that runs the table
(``server/cluster.py``), so every phrase of an account meets the same node's bucket
however often the player reconnects elsewhere (``tests/server/test_cluster_limits.py``).
Only a failover (the table resumes on another node) starts a fresh bucket: three phrases
more, once per node death.

Bots get friendly names: Wuhan nicknames (老李, 汉口的张师傅 …), different at each
table from the humans' names.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from typing import TYPE_CHECKING

from .calculator import AddressLimiter
from .placement import TablePlace
from .protocol import ChatMsg, ChatOut, ProtocolError

if TYPE_CHECKING:
    from .hub import Client, Hub

__all__ = ["BOT_NAMES", "EMOTES", "PHRASES", "ChatRelay", "bot_names"]

PHRASES = ("hurry", "nice", "calm", "lucky", "unlucky", "thanks", "again", "bye")
"""搞快点撒！ 你蛮狠咧！ 莫急，慢慢来 这手气几好哦！ 冇得搞头了… 谢谢老板！ 再来一盘！ 走了，拜拜"""

EMOTES = ("laugh", "cry", "angry", "cool", "heart")

CHAT_RATE = 0.25
"""Phrases per second an account may send in the long run (one every four seconds)."""
CHAT_BURST = 3

BOT_NAMES = ("汉口老李", "武昌张师傅", "汉阳王姐", "青山刘哥", "洪山小陈", "江汉胡婆婆",
             "硚口周爹爹", "东湖小杨", "光谷阿杰", "江岸孙嬢嬢", "黄陂老吴", "蔡甸小郑")


def bot_names(n: int, taken: Collection[str] = (), rng: random.Random | None = None) -> list[str]:
    """``n`` different bot names, none of them in ``taken`` (the humans at the table).

    >>> names = bot_names(3, taken={"汉口老李"}, rng=random.Random(1))
    >>> len(set(names)), "汉口老李" in names
    (3, False)
    """
    free = [name for name in BOT_NAMES if name not in taken]
    (rng or random.Random()).shuffle(free)
    out = free[:n]
    while len(out) < n:  # more bots than names: number the rest
        out.append(f"{BOT_NAMES[len(out) % len(BOT_NAMES)]}{len(out) + 1}")
    return out


class ChatRelay:
    """Checks a quick-chat message and relays it to everyone at the sender's table."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self.limiter = AddressLimiter(CHAT_RATE, CHAT_BURST)
        """One token bucket per account that chatted lately, in bounded memory (a dict
        keyed by every account that ever chatted grew for the server's lifetime)."""

    def say(self, client: Client, msg: ChatMsg) -> None:
        if (msg.phrase is None) == (msg.emote is None):
            raise ProtocolError("invalid_message", "send one of 'phrase' or 'emote'",
                                field="phrase", problem="missing")
        if msg.phrase is not None and msg.phrase not in PHRASES:
            raise ProtocolError("invalid_message", f"no quick phrase {msg.phrase!r}",
                                field="phrase", problem="other")
        if msg.emote is not None and msg.emote not in EMOTES:
            raise ProtocolError("invalid_message", f"no emote {msg.emote!r}", field="emote", problem="other")
        place = self.hub.where.get(client.account_id)
        if not isinstance(place, TablePlace):
            raise ProtocolError("not_seated", "quick chat is for players at a table")
        if self.limiter.retry_after(str(client.account_id)) > 0:
            raise ProtocolError("rate_limited", "one quick phrase every few seconds", reason="chat")
        out = ChatOut(seat=place.seat, phrase=msg.phrase, emote=msg.emote)
        for seat in place.table.seats:
            if not seat.is_bot:
                self.hub.table_send(place.table, seat.account_id, out)
