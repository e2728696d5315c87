"""Ending a match early by agreement (申请解散): one player at a table asks, the others answer.

Friends at a private table, or a player with bots, sometimes have to stop before the last
hand.  Leaving alone is an escape (逃跑) and pays its penalty; this is the way out that
costs nobody anything: every hand played so far is settled already, and the match simply
ends after the hand in progress (between hands: when the pause after the last is over), as
one whose number of hands was lower.  The table writes that end to its match log, so a
match resumed after a crash ends at the same hand; the vote itself lives only in the
running table (a crash mid-vote forgets it, and anyone may ask again).

Who decides: every player seated at the table who has not escaped (bots follow the
humans).  The asker agrees by asking.  One refusal ends the vote; a player who has not
answered when :data:`END_VOTE_SECONDS` have passed agrees (超时默认同意, as the apps players
know do it), so a player who walked away does not hold the others at the table.  Each seat
asks at most once a hand, so nobody can keep the others clicking; a tournament's matches
cannot end this way (their standings need every hand).

The class is pure (the table passes the clock in) and knows nothing of frames or sockets.

>>> vote = EndVote.open(proposer=0, voters=[0, 2], now=100.0)
>>> vote.result(now=101.0)
'open'
>>> vote.answer(2, agree=True)
>>> vote.result(now=101.0)
'passed'
>>> late = EndVote.open(proposer=1, voters=[1, 3], now=0.0)
>>> late.result(now=END_VOTE_SECONDS)
'passed'
>>> no = EndVote.open(proposer=1, voters=[1, 3], now=0.0)
>>> no.answer(3, agree=False)
>>> no.result(now=1.0), no.refused
('refused', 3)
>>> gone = EndVote.open(proposer=0, voters=[0, 1, 2], now=0.0)
>>> gone.answer(1, agree=True)
>>> gone.leave(2)  # the last who had not answered escapes: the others decide
>>> gone.result(now=1.0)
'passed'
>>> withdrawn = EndVote.open(proposer=0, voters=[0, 1], now=0.0)
>>> withdrawn.leave(0)  # the asker escapes: his request goes with him
>>> withdrawn.result(now=1.0), withdrawn.refused
('refused', 0)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["END_VOTE_SECONDS", "EndVote", "VoteResult"]

END_VOTE_SECONDS = 60.0
"""How long the others have to answer; who has not answered by then agrees."""

VoteResult = Literal["open", "passed", "refused"]


@dataclass
class EndVote:
    """One seat's request to end the match after the hand in progress, and the answers."""

    proposer: int
    voters: frozenset[int]
    """The seats whose agreement is needed (the proposer's among them)."""
    deadline: float
    """Clock time at which those who have not answered agree."""
    agreed: set[int] = field(default_factory=set)
    refused: int | None = None
    """The seat that said no (the vote is over)."""

    @classmethod
    def open(cls, proposer: int, voters: Iterable[int], now: float,
             seconds: float = END_VOTE_SECONDS) -> EndVote:
        seats = frozenset(voters) | {proposer}
        return cls(proposer=proposer, voters=seats, deadline=now + seconds, agreed={proposer})

    def answer(self, seat: int, agree: bool) -> None:
        """Record ``seat``'s answer (the first refusal ends the vote; later answers change
        nothing).  Raises :class:`ValueError` for a seat that has no say or has answered."""
        if seat not in self.voters:
            raise ValueError(f"seat {seat} has no say in this vote")
        if seat in self.agreed:
            raise ValueError(f"seat {seat} has answered already")
        if self.refused is not None:
            return
        if agree:
            self.agreed.add(seat)
        else:
            self.refused = seat

    def leave(self, seat: int) -> None:
        """``seat`` escaped: he has no say any more; if he asked, his request goes with him
        (refused by his own seat)."""
        self.voters = self.voters - {seat}
        self.agreed.discard(seat)
        if self.refused is None and self.proposer == seat:
            self.refused = seat

    def result(self, now: float) -> VoteResult:
        """``refused`` once anyone said no; ``passed`` once every voter agreed, or the time
        is up with no refusal; else ``open``."""
        if self.refused is not None:
            return "refused"
        if self.agreed >= self.voters or now >= self.deadline:
            return "passed"
        return "open"

    def waiting(self) -> list[int]:
        """The seats that have not answered yet, in seat order."""
        return sorted(self.voters - self.agreed) if self.refused is None else []
