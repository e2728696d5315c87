"""The WebSocket protocol: one pydantic model per message, both directions.

Every frame is a JSON object with a ``type``.  Client messages are validated
by :func:`parse_client_message` (unknown types, unknown fields, wrong types
and oversized strings are rejected with an :class:`ProtocolError` naming the
problem); server messages are built from the models below, so every frame a
client receives matches its model.  ``docs/protocol.md`` is the reference;
:data:`PROTOCOL_VERSION` changes whenever a message changes incompatibly.

The game state a client sees is ``StateMsg.view``: exactly the engine's
:func:`~wuhan_mahjong.engine.views.seat_view` for that seat (with its
``legal_actions`` emptied once the seat has answered a claim window).
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model, model_validator

from .. import jsontext
from ..engine.views import SeatView
from ..rules import PROFILES, get_rules
from ..store.clubs import NUMBER_HIGH as CLUB_NUMBER_HIGH
from ..store.clubs import NUMBER_LOW as CLUB_NUMBER_LOW
from ..store.staff import StaffRole
from .config import HANDS_MAX, STAKE_MAX

__all__ = [
    "CLIENT_TYPES",
    "PROTOCOL_VERSION",
    "ClientMessage",
    "ErrorCode",
    "ProtocolError",
    "ServerMessage",
    "parse_client_message",
]

PROTOCOL_VERSION = 1

Profile = Literal["yuanhang", "bianfeng", "laizishanzhuang"]
assert set(Profile.__args__) == set(PROFILES)  # type: ignore[attr-defined]

Ref = Annotated[str | None, Field(default=None, max_length=64)]
"""An optional client-chosen id, echoed in the error frame that answers the message."""

ErrorCode = Literal[
    "bad_json", "binary_frame", "too_large", "unknown_type", "invalid_message",
    "not_authenticated", "auth_failed", "already_authenticated", "rate_limited",
    "busy", "not_found", "room_full", "not_host", "not_ready", "guest_not_allowed",
    "insufficient_silver", "bad_options", "not_seated", "no_decision", "bad_action",
    "illegal_action", "stale_decision", "already_answered", "escaped", "server_error",
    "not_watchable", "watchers_full", "offline", "kicked", "not_friends", "in_tournament",
    "not_member", "cannot_end", "same_address",
]


ErrorParams = dict[str, str | int | float]
"""The values an error's translation needs (``{"code": "123456"}`` for ``not_found``): the
client shows every error in the player's language from its code and these, never from the
English ``message``."""


class ProtocolError(ValueError):
    """A client message that cannot be used; ``code`` is the error frame's code,
    ``params`` its parameters (:data:`ErrorParams`)."""

    def __init__(self, code: ErrorCode, message: str, ref: str | None = None,
                 **params: str | int | float) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.ref = ref
        self.params: ErrorParams = params


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# =========================================================================== client → server
class _ClientMsg(_Msg):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    ref: Ref


class HelloMsg(_ClientMsg):
    """Authenticate: the first message, unless the upgrade request carried an
    ``Authorization: Bearer`` header.  Tokens never travel in URLs (they would land
    in access logs and browser histories)."""

    type: Literal["hello"]
    token: str = Field(min_length=1, max_length=256)
    protocol: int = Field(default=PROTOCOL_VERSION, ge=0, le=1_000_000)


class PingMsg(_ClientMsg):
    type: Literal["ping"]


class QuickMatchMsg(_ClientMsg):
    """Join the quick-match queue of a profile; ``silver`` tables play at the server's stake."""

    type: Literal["quick_match"]
    profile: Profile | None = None
    silver: bool = False


class RoomOptions(_Msg):
    """Options of a private room.  ``rules`` overrides rule options by name (``wuhan-mahjong
    rules`` lists them); the convenience fields override the same-named rule options.

    The rule options' ranges live with their definitions (``rules.OPTION_BOUNDS``):
    the lobby builds the room's rules with :func:`~wuhan_mahjong.rules.get_rules`,
    which refuses a value outside its range or a non-finite number (``bad_options``).
    ``hands`` and ``stake`` are the room's own and have their ranges here."""

    profile: Profile = "yuanhang"
    hands: int = Field(default=4, ge=1, le=HANDS_MAX)
    stake: int = Field(default=0, ge=0, le=STAKE_MAX)
    opening_scoring: Literal["once", "per_opening"] | None = None
    """开口翻 ``once`` or 口口翻 ``per_opening``."""
    claim_window_seconds: float | None = None
    turn_seconds: float | None = None
    cap: int | None = None
    rules: dict[str, Any] = Field(default_factory=dict, max_length=40)
    fill_bots: bool = True
    """When the host starts the room, empty seats get bots."""
    spectators: bool = True
    """Whether others may watch the room's table (delayed, no hidden tile: ``server.spectate``);
    on by default, as lichess lets anyone watch any game; the host turns it off."""
    distinct_addresses: bool = False
    """同IP禁止进入: the members connect from different addresses; a player connected from a
    member's address may not join (``same_address``), and the room does not start while two
    members share one (a reconnection from elsewhere).  For a silver room among people who
    met through its code."""
    club: int | None = Field(default=None, ge=CLUB_NUMBER_LOW, le=CLUB_NUMBER_HIGH)
    """A club's table (亲友圈, ``store/clubs.py``): only its members open or join it, and it is
    played by the club's rules, whatever else the options say (the lobby puts them in)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class CreateRoomMsg(_ClientMsg):
    type: Literal["create_room"]
    options: RoomOptions = Field(default_factory=RoomOptions)


class JoinRoomMsg(_ClientMsg):
    type: Literal["join_room"]
    code: str = Field(pattern=r"^[0-9]{6}$")
    rejoin: bool = False
    """Only back into a room one is a member of already (held while one was away): a
    reconnected client's way to its room through a cluster's node that does not hold it;
    ``not_seated`` when one is not in it (its grace ended, one was asked to leave)."""


class ReadyMsg(_ClientMsg):
    type: Literal["ready"]
    ready: bool = True


class StartMsg(_ClientMsg):
    """The host starts the room (every member ready; bots fill empty seats)."""

    type: Literal["start"]


class KickMsg(_ClientMsg):
    """The host asks a member to leave the room (请出); he may not come back to it."""

    type: Literal["kick"]
    name: str = Field(min_length=1, max_length=64)


class LeaveMsg(_ClientMsg):
    """Leave the queue or the room; during a match this is an escape (逃跑)."""

    type: Literal["leave"]


class ActionIn(_Msg):
    """An engine action in its JSON form (``wuhan_mahjong.engine.actions``)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["discard", "chi", "peng", "kong", "special_kong", "laizi_discard", "win", "pass"]
    tile: str | None = Field(default=None, max_length=8)
    kind: str | None = Field(default=None, max_length=16)
    tiles: str | None = Field(default=None, max_length=32)
    """The tiles it uses, as the view's legal actions carry them (so a client may send one
    back as is); the engine decides, this is never read."""


class ActionMsg(_ClientMsg):
    type: Literal["action"]
    action: ActionIn
    decision: int = Field(ge=0, le=2**31 - 1)
    """The view's ``decision``: the action answers that decision, and is refused
    (``stale_decision``) once another one is open, so a late click never lands in the
    next claim window."""
    hand_no: int | None = Field(default=None, ge=0, le=2**31 - 1)
    """If given, the action is refused unless that hand is in progress (stale clicks)."""


class AutoMsg(_ClientMsg):
    """Switch auto-play (托管) on or off for one's own seat."""

    type: Literal["auto"]
    on: bool


class NextHandMsg(_ClientMsg):
    """Ready for the next hand (继续, as the apps' 准备 between hands): the pause after a
    hand ends as soon as a player has said so and every other player connected to the
    table has too or is on 托管, at the latest after the server's ``hand_pause``."""

    type: Literal["next_hand"]
    hand_no: int | None = Field(default=None, ge=0, le=2**31 - 1)
    """The hand whose result one has read; a late answer about an earlier hand is ignored."""


class ProposeEndMsg(_ClientMsg):
    """Ask the others at the table to end the match after the hand in progress (申请解散,
    ``server/end_vote.py``)."""

    type: Literal["propose_end"]


class AnswerEndMsg(_ClientMsg):
    """Answer the open request to end the match: agree, or refuse."""

    type: Literal["answer_end"]
    agree: bool


class SnapshotMsg(_ClientMsg):
    """Ask for the table and state frames again."""

    type: Literal["snapshot"]


class WatchMsg(_ClientMsg):
    """Watch a running table (``GET /api/tables/live`` lists them): ``server.spectate``."""

    type: Literal["watch"]
    table: str = Field(pattern=r"^[0-9a-f]{12}$")


class UnwatchMsg(_ClientMsg):
    """Stop watching."""

    type: Literal["unwatch"]


class ChatMsg(_ClientMsg):
    """Quick chat at the table: one phrase or one emote by id (``server.chat``); no free text."""

    type: Literal["chat"]
    phrase: str | None = Field(default=None, max_length=16)
    emote: str | None = Field(default=None, max_length=16)


class InviteMsg(_ClientMsg):
    """Invite a friend (a player one follows who follows one back) into the room one is in
    (``server.invite``)."""

    type: Literal["invite"]
    username: str = Field(min_length=1, max_length=64)


ClientMessage = Annotated[
    HelloMsg | PingMsg | QuickMatchMsg | CreateRoomMsg | JoinRoomMsg | ReadyMsg | StartMsg
    | LeaveMsg | ActionMsg | AutoMsg | SnapshotMsg | ChatMsg | WatchMsg | UnwatchMsg
    | InviteMsg | KickMsg | ProposeEndMsg | AnswerEndMsg | NextHandMsg,
    Field(discriminator="type"),
]
CLIENT_TYPES = ("hello", "ping", "quick_match", "create_room", "join_room", "ready", "start",
                "leave", "action", "auto", "snapshot", "chat", "watch", "unwatch", "invite",
                "kick", "propose_end", "answer_end", "next_hand")
_CLIENT = TypeAdapter[Any](ClientMessage)


def _describe(error: ValidationError) -> str:
    parts = []
    for e in error.errors()[:3]:
        where = ".".join(str(x) for x in e["loc"][1:]) or "message"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


def validation_params(error: ValidationError, skip: int = 1) -> ErrorParams:
    """The first problem of ``error`` as error parameters: ``field`` (dotted path after the
    first ``skip`` parts), ``problem`` (pydantic's error type) and its scalar limits."""
    first = error.errors()[0]
    params: ErrorParams = {"field": ".".join(str(x) for x in first["loc"][skip:]) or "message",
                           "problem": first["type"]}
    for key, value in (first.get("ctx") or {}).items():
        if isinstance(value, str | int | float) and not isinstance(value, bool):
            params[key] = value
    return params


def parse_client_message(text: str) -> Any:
    """Parse and validate one client frame; raises :class:`ProtocolError`.

    >>> parse_client_message('{"type": "ping", "ref": "7"}')
    PingMsg(ref='7', type='ping')
    >>> parse_client_message('{"type": "dance"}')
    Traceback (most recent call last):
    ...
    wuhan_mahjong.server.protocol.ProtocolError: unknown message type 'dance'
    >>> parse_client_message('{"type": "ping", "ref": "\\\\ud800"}')
    Traceback (most recent call last):
    ...
    wuhan_mahjong.server.protocol.ProtocolError: a string holds a lone surrogate: send valid Unicode
    >>> parse_client_message('{"type": "ping", "n": ' + "9" * 5000 + '}')
    Traceback (most recent call last):
    ...
    wuhan_mahjong.server.protocol.ProtocolError: malformed JSON: a number of too many digits
    """
    try:
        obj = jsontext.loads(text)
    except jsontext.LoneSurrogateError:
        raise ProtocolError("invalid_message",
                            "a string holds a lone surrogate: send valid Unicode") from None
    except json.JSONDecodeError as e:
        raise ProtocolError("bad_json", f"malformed JSON: {e.msg}") from None
    if not isinstance(obj, dict):
        raise ProtocolError("invalid_message", "a message must be a JSON object")
    ref = obj.get("ref") if isinstance(obj.get("ref"), str) and len(obj["ref"]) <= 64 else None
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("invalid_message", "a message needs a 'type' string", ref)
    if kind not in CLIENT_TYPES:
        raise ProtocolError("unknown_type", f"unknown message type {kind[:32]!r}", ref)
    try:
        return _CLIENT.validate_python(obj)
    except ValidationError as e:
        raise ProtocolError("invalid_message", f"bad '{kind}' message: {_describe(e)}", ref,
                            **validation_params(e)) from None


# =========================================================================== the seat view
_VIEW_CONFIG = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


def _field_type(tp: Any) -> Any:
    """A TypedDict annotation with every nested TypedDict made a strict model."""
    if is_typeddict(tp):
        return model_of(tp)
    origin, args = get_origin(tp), get_args(tp)
    if origin is list:
        return list[_field_type(args[0])]  # type: ignore[misc]
    if origin in (Union, UnionType):
        return Union[tuple(_field_type(a) for a in args)]  # noqa: UP007
    return tp


@functools.cache
def model_of(td: type) -> type[BaseModel]:
    """The strict pydantic model of an engine TypedDict (the seat view and its parts).

    The engine's :mod:`~wuhan_mahjong.engine.views` is the one schema of the view; this
    model is derived from it, never written again, and refuses a key the TypedDict does
    not declare (``extra="forbid"``), a missing required key and a wrong type.  A key
    that shadows a ``BaseModel`` attribute (``schema``) is kept under its alias.
    """
    fields: dict[str, Any] = {}
    for key, tp in get_type_hints(td, include_extras=True).items():
        # read NotRequired here: under postponed annotations Python 3.11's TypedDict
        # counts every key in __required_keys__
        required = get_origin(tp) is not NotRequired
        name = key if not hasattr(BaseModel, key) else f"{key}_"
        fields[name] = (_field_type(get_args(tp)[0] if not required else tp),
                        Field(... if required else None, alias=key))
    return create_model(f"{td.__name__}Model", __config__=_VIEW_CONFIG, __doc__=td.__doc__, **fields)


if TYPE_CHECKING:
    class ViewModel(BaseModel):
        """:class:`wuhan_mahjong.engine.views.SeatView`, strictly (made by :func:`model_of`)."""
else:
    ViewModel = model_of(SeatView)


# =========================================================================== server → client
class AccountInfo(_Msg):
    id: int
    username: str
    is_guest: bool
    silver: int
    points: int
    level: int
    title: str
    title_en: str
    rank: str
    rank_en: str


class AnnouncementOut(BaseModel):
    """A notice to every player (系统公告, ``store/announcements.py``)."""

    id: int
    text: str
    expires_at: datetime | None


class WelcomeMsg(_Msg):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    account: AccountInfo
    at_table: bool
    announcement: AnnouncementOut | None = None
    """The notice to every player shown now, if any (later ones come as ``announcement``)."""
    staff: StaffRole | None = None
    """The player's staff role (the staff pages, ``#/staff``), else ``null``."""


class ErrorMsg(_Msg):
    type: Literal["error"] = "error"
    code: ErrorCode
    message: str
    """For logs and developers, in English; clients translate ``code`` with ``params``."""
    params: ErrorParams = Field(default_factory=dict)
    ref: str | None = None


class PongMsg(_Msg):
    type: Literal["pong"] = "pong"
    ref: str | None = None


class QueuedMsg(_Msg):
    type: Literal["queued"] = "queued"
    profile: str
    stake: int
    waiting: int
    bots_after: float | None
    """Seconds after the first player joined at which bots fill the table; ``None`` at a
    silver queue, which waits for four players (bots never play for silver)."""


class RoomMember(_Msg):
    name: str
    ready: bool
    host: bool
    you: bool
    same_address: int | None = None
    """Members connected from one address share a number (1, 2: 同IP, as the apps show it,
    so that friends know before they play for silver); ``None``: the only member of his
    address.  The address itself is never sent."""
    away: bool = False
    """His connection dropped (离线): the room holds his place for the server's
    ``room_grace_seconds`` and he is not ready; back within it, he is in the room again."""


class RoomMsg(_Msg):
    type: Literal["room"] = "room"
    code: str
    options: RoomOptions
    members: list[RoomMember]
    min_silver: int
    """Silver each member needs to sit (0 at a free room): ``economy.min_to_sit``."""
    overrides: dict[str, Any] = Field(default_factory=dict)
    """Every rule option of the room that differs from its profile's preset, by name
    (the clients show them to every member before they press ready)."""
    club_name: str | None = None
    """The name of the club whose table this is (``options.club``), when the room knows it
    (a rematch's room names only the number)."""


class LeftMsg(_Msg):
    type: Literal["left"] = "left"
    where: Literal["queue", "room", "table"]
    kicked: bool = False
    """The room's host asked him to leave it (``kick``)."""
    club: int | None = None
    """He left a club's table because he is no longer a member of that club (removed, or he
    left it, or it was dissolved) when it was to start."""
    escaped: bool = False
    penalty: int = 0
    """Points paid for an escape (the profile's ``escape`` penalty)."""


class PlayerInfo(_Msg):
    seat: int
    name: str
    bot: bool
    connected: bool
    auto: bool
    escaped: bool


class TournamentInfo(_Msg):
    """The tournament table a match is: which tournament, round and table (kept in the
    match's stored configuration, whose opening and end mark the table in the store)."""

    id: int
    round: int
    table: int
    rounds: int
    name: str


class TableMsg(_Msg):
    """Sent when a match starts and on every (re)connection to it."""

    type: Literal["table"] = "table"
    table_id: str
    match_id: str
    seat: int
    profile: str
    rules: dict[str, Any]
    hands: int
    stake: int
    fee: int
    claim_seconds: float
    turn_seconds: float
    players: list[PlayerInfo]
    watchers: int = 0
    """How many are watching the table now (a ``watchers`` frame tells each change)."""
    overrides: dict[str, Any] = Field(default_factory=dict)
    """The rule options that differ from the profile's preset (shown in the table's info);
    filled in from ``rules`` and ``profile`` when the server builds the frame."""
    tournament: TournamentInfo | None = None
    """The tournament round this match is, if any (the table shows it)."""
    hands_now: int | None = None
    """The match's number of hands now, when it was set to end early (a request to end it
    passed, or the table was abandoned): it ends after hand ``hands_now - 1``; ``None``: it
    plays its ``hands``."""

    @model_validator(mode="before")
    @classmethod
    def _overrides(cls, data: Any) -> Any:
        if isinstance(data, dict) and "overrides" not in data and isinstance(data.get("rules"), dict):
            preset = get_rules(data["profile"]).to_dict() if data.get("profile") in PROFILES else {}
            data = {**data, "overrides": {k: v for k, v in data["rules"].items()
                                          if k in preset and preset[k] != v}}
        return data


class TimerInfo(_Msg):
    kind: Literal["turn", "claim", "rob", "final"]
    seconds: float
    """Seconds left in the current decision when the frame was sent (server-timed)."""


class StateMsg(_Msg):
    type: Literal["state"] = "state"
    match_id: str
    hand_no: int
    view: ViewModel
    totals: list[int]
    players: list[PlayerInfo]
    timer: TimerInfo | None
    answered: bool
    """This seat has answered the open claim window (its answer stays secret)."""
    auto: bool
    """This seat is on auto-play (托管)."""


class HandEndMsg(_Msg):
    type: Literal["hand_end"] = "hand_end"
    match_id: str
    hand_no: int
    outcome: str
    winner: int | None
    deltas: list[int]
    totals: list[int]
    next_hand_in: float | None
    """Seconds until the next hand; ``None`` after the last hand."""


class MatchResultLine(_Msg):
    seat: int
    name: str
    points: int
    silver: int
    fee: int


class MatchEndMsg(_Msg):
    type: Literal["match_end"] = "match_end"
    match_id: str
    totals: list[int]
    stake: int
    results: list[MatchResultLine]
    hands: list[list[int]] = Field(default_factory=list)
    """Each settled hand's points by seat, in order: the summary's columns, a hand the
    receiver missed while his connection was down included."""
    escape_points: list[int] = Field(default_factory=lambda: [0, 0, 0, 0])
    """The escape penalties by seat (the escaper pays, the others share): with ``hands`` they
    add up to each seat's points."""
    account: AccountInfo | None
    """The receiver's account after the settlement."""
    reason: Literal["server_error"] | None = None
    """Why the match ended before its last hand: ``server_error`` (the table stopped on an
    unexpected error; the finished hands are settled, the unfinished hand does not count)."""
    rematch: str | None = None
    """The code of a new room with this match's options, when it came from a private room
    and was played to its end (*再来一场*: ``join_room`` with it; the first back hosts it)."""
    tournament: int | None = None
    """The tournament this match was a table of (back to its page: its next round)."""


class NoticeMsg(_Msg):
    type: Literal["notice"] = "notice"
    code: Literal["auto_on", "auto_off", "escape", "replaced", "logged_out"]
    message: str
    seat: int | None = None


class EndVoteMsg(_Msg):
    """To every player at the table when someone asks to end the match early (申请解散), at
    each answer, at the vote's end, and again on reconnection while it is open."""

    type: Literal["end_vote"] = "end_vote"
    proposer: int
    voters: list[int]
    """The seats whose agreement is needed (the players who have not escaped)."""
    agreed: list[int]
    refused: int | None = None
    """The seat that said no (the proposer's own: he left the match, and his request with
    him)."""
    seconds: float
    """Left to answer; who has not answered by then agrees."""
    result: Literal["open", "passed", "refused", "closed"]
    """``closed``: the match ended (its last hand) before the request was decided."""
    hands: int | None = None
    """Once passed: the match's number of hands now (it ends after hand ``hands - 1``)."""


class ChatOut(_Msg):
    """A player's quick phrase or emote, to everyone at the table."""

    type: Literal["chat"] = "chat"
    seat: int
    phrase: str | None = None
    emote: str | None = None


class WatchingMsg(_Msg):
    """Answers ``watch``: the watched table (``watch_state`` frames follow)."""

    type: Literal["watching"] = "watching"
    table_id: str
    match_id: str
    profile: str
    rules: dict[str, Any]
    hands: int
    stake: int
    players: list[PlayerInfo]
    delay: int
    """Spectators see each move this many moves late (``spectator_delay_moves``)."""
    watchers: int


class WatchStateMsg(_Msg):
    """What a spectator sees: the engine's spectator view (no concealed tile), delayed."""

    type: Literal["watch_state"] = "watch_state"
    table_id: str
    match_id: str
    hand_no: int
    view: ViewModel
    totals: list[int]
    players: list[PlayerInfo]


class UnwatchedMsg(_Msg):
    """Watching stopped: ``unwatch`` was sent, the match ``ended``, or the spectator sat down
    at a table of his own (``seated``: a seated player does not watch)."""

    type: Literal["unwatched"] = "unwatched"
    table_id: str
    reason: Literal["unwatch", "ended", "seated"]


class InvitedMsg(_Msg):
    """To a player: someone who follows him invites him into a room (``join_room`` with
    ``code`` accepts; a refusal needs no answer)."""

    type: Literal["invited"] = "invited"
    by: str
    """The inviter's name."""
    code: str
    options: RoomOptions


ClubEventKind = Literal["applied", "approved", "rejected", "removed", "admin", "member",
                        "owner"]


class ClubEventMsg(_Msg):
    """To a player, on whichever node holds his connection: something about him in a club
    (亲友圈, ``server/clubs_api.py``).  ``applied``: ``username`` asks to join a club he owns or
    helps run; ``approved`` / ``rejected``: his application was answered; ``removed``: he was
    removed from it; ``admin`` / ``member`` / ``owner``: his role in it is now that."""

    type: Literal["club_event"] = "club_event"
    event: ClubEventKind
    club: int
    name: str
    """The club's name."""
    username: str
    """Who it is about: the applicant for ``applied``, else the player who acted."""


class AnnouncementMsg(_Msg):
    """To every connected player, on every node, within a few seconds of an operator's or
    an admin's change: the notice shown now, or ``null`` once it is taken down or expires."""

    type: Literal["announcement"] = "announcement"
    announcement: AnnouncementOut | None


class InviteSentMsg(_Msg):
    """To the inviter: the invitation reached the player's connection."""

    type: Literal["invite_sent"] = "invite_sent"
    username: str
    ref: str | None = None


class WatchersMsg(_Msg):
    """To the players: how many watch their table now."""

    type: Literal["watchers"] = "watchers"
    table_id: str
    count: int


ServerMessage = Annotated[
    WelcomeMsg | ErrorMsg | PongMsg | QueuedMsg | RoomMsg | LeftMsg | TableMsg | StateMsg
    | HandEndMsg | MatchEndMsg | NoticeMsg | ChatOut | WatchingMsg | WatchStateMsg
    | UnwatchedMsg | WatchersMsg | InvitedMsg | InviteSentMsg | ClubEventMsg | AnnouncementMsg
    | EndVoteMsg,
    Field(discriminator="type"),
]
SERVER_MESSAGES: TypeAdapter[Any] = TypeAdapter(ServerMessage)


def encode(msg: BaseModel) -> str:
    """The JSON text of a server frame."""
    return msg.model_dump_json(by_alias=True)


def _dumps(obj: Any) -> str:
    """Compact JSON text (orjson: the state frames are the server's hot path)."""
    return orjson.dumps(obj).decode()


def state_frame_parts(match_id: str, hand_no: int, totals: list[int],
                      players: list[dict[str, Any]], timer: dict[str, Any] | None) -> tuple[str, str]:
    """The parts of a :class:`StateMsg` that are the same for every seat of a table.

    State frames are the hot path (one per seat per move): :func:`state_frame` assembles
    their JSON text directly instead of validating the view through the models on every
    frame.  The text is exactly ``StateMsg``'s; the server tests validate every frame
    they receive against :data:`SERVER_MESSAGES`.
    """
    head = f'{{"type":"state","match_id":{_dumps(match_id)},"hand_no":{hand_no},"view":'
    tail = f',"totals":{_dumps(totals)},"players":{_dumps(players)},"timer":{_dumps(timer)}'
    return head, tail


def encode_view(view: Any) -> str:
    """The JSON text of a seat view, as it appears inside a state frame."""
    return _dumps(view)


def state_frame(parts: tuple[str, str], view_text: str, answered: bool, auto: bool) -> str:
    """One seat's state frame (see :func:`state_frame_parts`); ``view_text`` from
    :func:`encode_view`."""
    head, tail = parts
    return (f'{head}{view_text}{tail},"answered":{"true" if answered else "false"},'
            f'"auto":{"true" if auto else "false"}}}')
