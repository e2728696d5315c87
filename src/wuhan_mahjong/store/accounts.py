"""Username and password rules, password hashing and session tokens (no database).

Usernames
    2 to 20 characters after Unicode NFKC normalisation; letters of any script
    (so Chinese names work), decimal digits, ``_`` and ``-``; the first
    character is a letter.  Uniqueness is case-insensitive (the stored
    ``username_key`` is the NFKC + casefold form).  Names starting with
    ``guest`` and a few others (:data:`RESERVED_USERNAMES`) are reserved.
Passwords
    6 to 128 characters, anything else is free.  Hashed with argon2id
    (``argon2-cffi``; its default RFC 9106 low-memory parameters unless the
    store is given another :class:`argon2.PasswordHasher`).
Session tokens
    32 random bytes, URL-safe base64.  Only their SHA-256 is stored: a token has
    256 bits of entropy, so a fast hash is enough (nothing to brute-force), and
    a leaked database holds no usable token.
"""

from __future__ import annotations

import hashlib
import secrets
import unicodedata

from .errors import InvalidPassword, InvalidUsername

__all__ = [
    "GUEST_PREFIX",
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "RESERVED_USERNAMES",
    "USERNAME_MAX",
    "USERNAME_MIN",
    "check_password_rules",
    "hash_token",
    "new_guest_name",
    "new_token",
    "normalize_username",
]

USERNAME_MIN = 2
USERNAME_MAX = 20
PASSWORD_MIN = 6
PASSWORD_MAX = 128
GUEST_PREFIX = "guest"
RESERVED_USERNAMES = frozenset({"admin", "administrator", "house", "root", "server", "system"})

_LETTER_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo"})


def _allowed(char: str) -> bool:
    category = unicodedata.category(char)
    return category in _LETTER_CATEGORIES or category == "Nd" or char in "_-"


def normalize_username(username: str, *, allow_guest: bool = False) -> tuple[str, str]:
    """Check ``username`` against the rules; return ``(display name, unique key)``.

    Raises :class:`InvalidUsername` with a message a player can act on.
    """
    if not isinstance(username, str):
        raise InvalidUsername("the username must be text")
    name = unicodedata.normalize("NFKC", username)
    if not USERNAME_MIN <= len(name) <= USERNAME_MAX:
        raise InvalidUsername(
            f"the username must be {USERNAME_MIN} to {USERNAME_MAX} characters long"
        )
    bad = sorted({char for char in name if not _allowed(char)})
    if bad:
        shown = " ".join(repr(char) for char in bad)
        raise InvalidUsername(
            f"the username may only contain letters, digits, '_' and '-' (not {shown})"
        )
    if unicodedata.category(name[0]) not in _LETTER_CATEGORIES:
        raise InvalidUsername("the username must start with a letter")
    key = name.casefold()
    if key in RESERVED_USERNAMES or (key.startswith(GUEST_PREFIX) and not allow_guest):
        raise InvalidUsername(f"the username {name!r} is reserved")
    return name, key


def check_password_rules(password: str) -> None:
    """Raise :class:`InvalidPassword` unless ``password`` may be set."""
    if not isinstance(password, str):
        raise InvalidPassword("the password must be text")
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidPassword(
            f"the password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long"
        )


def new_guest_name() -> str:
    """A fresh guest name such as ``guest_3f9a1c2b`` (valid only for guests)."""
    return f"{GUEST_PREFIX}_{secrets.token_hex(4)}"


def new_token() -> str:
    """A new opaque session token (43 URL-safe characters)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a session token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
