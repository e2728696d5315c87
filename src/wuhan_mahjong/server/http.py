"""The HTTP API's small pieces, shared by the route modules: the request and answer
models' bases, the error shape (``{"error": {code, message, params}}``, every code in
:data:`HttpErrorCode`), the :func:`api` wrapper that turns the store's refusals into it,
reading a body, the caller's account, the caller's address and the per-address limits.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.convertors import Convertor, register_url_convertor
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..store import (
    Account,
    AuthenticationFailed,
    InvalidPassword,
    InvalidSettlement,
    InvalidUsername,
    StoreError,
    UnknownAccount,
    UsernameTaken,
)
from ..store.accounts import PASSWORD_MAX, PASSWORD_MIN, USERNAME_MAX, USERNAME_MIN
from ..store.database import error_line, is_transient
from .calculator import AddressLimits
from .protocol import ErrorParams, validation_params

if TYPE_CHECKING:
    from .hub import Hub

__all__ = ["DATABASE_RETRY_AFTER", "NAME_INPUT_MAX", "Endpoint", "ErrorOut", "HttpError", "HttpErrorCode",
           "RequestModel", "ResponseModel", "WholeNumberConvertor", "account_of", "api", "bearer_token",
           "client_address", "database_away", "error_response", "hub_of", "limit",
           "maybe_account", "ok", "query_count", "read_body", "whole_number"]

log = logging.getLogger("wuhan_mahjong.server")

M = TypeVar("M", bound=BaseModel)


class RequestModel(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ResponseModel(BaseModel):
    model_config = ConfigDict(frozen=True)


HttpErrorCode = Literal[
    "too_large", "invalid_request", "not_authenticated", "rate_limited", "not_a_guest", "not_found",
    "username_taken", "invalid_credentials", "authentication_failed", "server_error",
    "method_not_allowed", "in_match", "tournament_refused", "club_refused", "staff_refused",
]
"""Every ``error.code`` of the HTTP API (the client translates each one, with ``params``)."""


class ErrorOut(ResponseModel):
    code: HttpErrorCode
    message: str
    params: ErrorParams = {}


def error_response(status: int, code: HttpErrorCode, message: str,
                   headers: dict[str, str] | None = None,
                   params: ErrorParams | None = None) -> JSONResponse:
    out = ErrorOut(code=code, message=message, params=params or {})
    return JSONResponse({"error": out.model_dump()}, status_code=status, headers=headers)


NAME_INPUT_MAX = 64
"""The longest username text accepted as input (a login, a player page, a follow, a block, a
report): longer than ``USERNAME_MAX``, since a name may be typed in a form that folds
shorter (full-width letters)."""

DATABASE_RETRY_AFTER = 2
"""Seconds a client is asked to wait (``Retry-After``) while the database is away."""


def database_away() -> JSONResponse:
    """503 while the database cannot be reached (a restart, a failover): the request may
    simply be sent again, and ``Retry-After`` says when."""
    return error_response(503, "server_error", "the server cannot reach its database: try again in "
                  "a moment", {"Retry-After": str(DATABASE_RETRY_AFTER)})


def ok(model: BaseModel, status: int = 200) -> Response:
    return Response(model.model_dump_json(), status_code=status, media_type="application/json")


class HttpError(Exception):
    def __init__(self, status: int, code: HttpErrorCode, message: str,
                 headers: dict[str, str] | None = None, params: ErrorParams | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code: HttpErrorCode = code
        self.headers = headers
        self.params = params


async def read_body(request: Request, model: type[M]) -> M:
    raw = await request.body()
    if len(raw) > 4096:
        raise HttpError(413, "too_large", "request body too large", params={"max": 4096})
    try:
        return model.model_validate_json(raw or b"{}")
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(x) for x in first["loc"]) or "body"
        raise HttpError(400, "invalid_request", f"{where}: {first['msg']}",
                        params=validation_params(e, skip=0)) from None


def bearer_token(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise HttpError(401, "not_authenticated", "send 'Authorization: Bearer <token>'")
    return token.strip()


def hub_of(request: Request) -> Hub:
    hub: Hub = request.app.state.hub
    return hub


async def account_of(request: Request) -> Account:
    account = await hub_of(request).authenticate(bearer_token(request))
    if account is None:
        raise HttpError(401, "not_authenticated", "unknown or expired token")
    return account


Endpoint = Callable[[Request], Awaitable[Response]]
"""A Starlette endpoint: a request in, a response out."""


def api(handler: Endpoint) -> Endpoint:
    """Map store and request errors to JSON error answers."""

    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except HttpError as e:
            return error_response(e.status, e.code, str(e), e.headers, e.params)
        except UsernameTaken as e:
            return error_response(409, "username_taken", str(e), params={"username": e.username})
        except InvalidUsername as e:
            return error_response(400, "invalid_credentials", str(e),
                          params={"field": "username", "min": USERNAME_MIN, "max": USERNAME_MAX})
        except InvalidPassword as e:
            return error_response(400, "invalid_credentials", str(e),
                          params={"field": "password", "min": PASSWORD_MIN, "max": PASSWORD_MAX})
        except AuthenticationFailed as e:
            return error_response(401, "authentication_failed", str(e))
        except (InvalidSettlement, UnknownAccount) as e:
            return error_response(400, "invalid_request", str(e))
        except StoreError:
            log.exception("store error")
            return error_response(500, "server_error", "the database refused the request")
        except SQLAlchemyError as e:
            if not is_transient(e):
                raise
            log.warning("%s %s: the database is unavailable (%s)", request.method,
                        request.url.path, error_line(e))
            return database_away()

    return wrapped


def whole_number(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number from ``low`` to ``high`` (ASCII digits only), else ``None``.

    Bounded in length before ``int``: Python refuses to convert more than 4,300 digits
    (a ``ValueError``, which a handler would answer with a 500).

    >>> whole_number("42", 1, 100), whole_number("9" * 5000, 1, 100), whole_number("\uff14\uff12", 1, 100)
    (42, None, None)
    """
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(high)):
        return None
    value = int(text)
    return value if low <= value <= high else None


class WholeNumberConvertor(Convertor[int]):
    """A path's whole number, ``{name:whole}`` in a route: at most 18 ASCII digits (a longer
    one matches no route: a 404).  Starlette's ``{name:int}`` takes any number of digits,
    and ``int`` refuses more than 4,300 (a ``ValueError`` in the routing itself: a 500)."""

    regex = "[0-9]{1,18}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("whole", WholeNumberConvertor())


def query_count(request: Request, name: str, default: int, low: int, high: int) -> int:
    """The query parameter ``name`` as a whole number from ``low`` to ``high`` (``default``
    when absent); 400 ``invalid_request`` with ``params`` ``field``, ``min``, ``max`` else."""
    text = request.query_params.get(name)
    if text is None:
        return default
    value = whole_number(text, low, high)
    if value is None:
        raise HttpError(400, "invalid_request", f"{name}: a whole number from {low} to {high}",
                        params={"field": name, "min": low, "max": high})
    return value


def client_address(request: Request) -> str:
    """The peer's address (a trusted proxy's ``X-Forwarded-For`` already applied)."""
    return request.client.host if request.client else "unknown"


async def limit(request: Request, limiter: AddressLimits | None, key: str, what: str) -> None:
    """Raise 429 ``rate_limited`` (with ``Retry-After``) when ``key`` is over its limit."""
    if limiter is None:
        return
    wait = await limiter.check(key)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        raise HttpError(429, "rate_limited", f"too many {what}: try again in {seconds} s",
                        {"Retry-After": str(seconds)})


async def maybe_account(request: Request) -> Account | None:
    """The token's account when the request has a valid one, else ``None`` (a public
    route that says more to a signed-in asker)."""
    if "authorization" not in request.headers:
        return None
    try:
        return await account_of(request)
    except HttpError:
        return None
