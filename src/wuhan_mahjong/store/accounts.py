"""Username and password rules, password hashing and session tokens (no database).

Usernames
    2 to 20 characters after Unicode NFKC normalisation; letters of any script
    (so Chinese names work), decimal digits, ``_`` and ``-``; the first
    character is a letter; no invisible letters (the Hangul fillers, which
    Unicode counts as letters: :data:`INVISIBLE_LETTERS`).  Uniqueness is by
    *skeleton* (:func:`username_skeleton`, stored as ``username_key``): case
    and look-alike characters are folded, so ``Alice``, ``ALICE`` and ``Аlice``
    (Cyrillic А) are one name.  Names whose skeleton starts with ``guest`` or
    is one of :data:`RESERVED_USERNAMES` are reserved.
Passwords
    Prepared as RFC 8265's OpaqueString profile before they are checked, hashed
    or compared (:func:`prepare_password`, with ``precis-i18n``): Unicode NFC,
    and every non-ASCII space becomes an ASCII space, so ``café`` typed with a
    combining accent (macOS, some phone keyboards) and with the precomposed ``é``
    (Windows) is one password, as is a space typed in a Chinese input method's
    full-width mode (U+3000); control and invisible characters are refused.
    8 to 128 characters, and not guessable: zxcvbn (the ``zxcvbn`` package,
    Dropbox's estimator) must rate it above 0, which refuses every password of
    its common-password lists (``123456``, ``password1``, ``p@ssw0rd`` ...),
    repeats (``aaaaaaaa``) and sequences (``abcdefgh``).  Hashed with argon2id
    (``argon2-cffi``; its default RFC 9106 low-memory parameters unless the
    store is given another :class:`argon2.PasswordHasher`).
Session tokens
    32 random bytes, URL-safe base64.  Only their SHA-256 is stored: a token has
    256 bits of entropy, so a fast hash is enough (nothing to brute-force), and
    a leaked database holds no usable token.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import secrets
import unicodedata

import precis_i18n
import zxcvbn  # type: ignore[import-untyped]
from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

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
    "lookup_keys",
    "new_guest_name",
    "new_token",
    "normalize_username",
    "password_forms",
    "prepare_password",
    "username_skeleton",
]

USERNAME_MIN = 2
USERNAME_MAX = 20
PASSWORD_MIN = 8
PASSWORD_MAX = 128
GUEST_PREFIX = "guest"
RESERVED_USERNAMES = frozenset({"admin", "administrator", "house", "root", "server", "system"})

_LETTER_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo"})

INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
"""Code points that Unicode classes as letters but that show nothing (the Hangul
fillers; they are Default_Ignorable).  Every other invisible character (zero-width
spaces and joiners, bidi marks, variation selectors) is a format or mark character,
which the username rules refuse anyway."""

_ZXCVBN_MAX = 72
"""zxcvbn refuses longer inputs; a longer password is judged by its first 72 characters."""


@functools.cache
def _prototypes() -> dict[str, str]:
    """Case-folded character → the character it is folded to in a skeleton.

    From the Unicode confusables data (UTS #39, as shipped by
    ``confusable_homoglyphs``): a character's look-alikes are the ones the data
    lists for it or for its upper-case form, case-folded; it is folded to the
    first of itself and those look-alikes in the order lowercase ASCII letters,
    other ASCII, then code point.  So Cyrillic ``а`` and Greek ``α`` become
    ``a``, and ``l``, ``I`` and ``1`` all become ``i``.  A character is folded
    only towards a better-ranked direct look-alike (and on along such steps):
    closing the data's look-alike pairs transitively would merge unrelated
    letters.  Multi-character look-alikes (``rn`` / ``m``) are not folded.
    """

    def clean(text: str) -> str:
        return text.replace("\u200e", "").replace("\u200f", "")

    data: dict[str, set[str]] = {}  # a character -> its look-alikes
    for key, glyphs in confusables.confusables_data.items():
        key = clean(key)
        if len(key) == 1:
            data.setdefault(key, set()).update(clean(g["c"]) for g in glyphs)

    def rank(char: str) -> tuple[int, int]:
        if "a" <= char <= "z":
            return 0, ord(char)
        return (1 if char.isascii() else 2), ord(char)

    def fold(text: str) -> str:
        return unicodedata.normalize("NFKC", text).casefold()

    out: dict[str, str] = {}
    for char in list(data):
        form = fold(char)
        if len(form) != 1 or form in out:
            continue
        alikes = {form}
        for source in (form, form.upper()):
            alikes.update(fold(g) for g in data.get(source, ()))
        best = min((c for c in alikes if len(c) == 1), key=rank)
        if best != form:
            out[form] = best
    for char in out:  # follow chains to their end (1 -> l -> i): each step ranks better
        while out[char] in out and out[out[char]] != out[char]:
            out[char] = out[out[char]]
    return out


def username_skeleton(name: str) -> str:
    """The form two names must not share: NFKC, case folded, look-alikes folded.

    >>> username_skeleton("Admin") == username_skeleton("\u0430dmin")  # Cyrillic а
    True
    >>> username_skeleton("ＢＯＢ") == username_skeleton("bob")
    True
    >>> username_skeleton("张三")
    '张三'
    """
    table = _prototypes()
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(table.get(char, char) for char in folded)



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
    if INVISIBLE_LETTERS.intersection(name):
        raise InvalidUsername("the username may not contain invisible characters")
    if unicodedata.category(name[0]) not in _LETTER_CATEGORIES:
        raise InvalidUsername("the username must start with a letter")
    key = username_skeleton(name)
    reserved, guest = _reserved_keys()
    if key in reserved or (key.startswith(guest) and not allow_guest):
        raise InvalidUsername(f"the username {name!r} is reserved")
    return name, key


def lookup_keys(username: str) -> tuple[str, ...]:
    """The keys a typed name may be stored under: its skeleton, and its NFKC + case-folded
    form (the key of accounts registered before skeletons, or kept by the migration when
    two old names share a skeleton).  Empty for text no account can have.

    >>> lookup_keys("Alice")
    ('aiice', 'alice')
    """
    if not isinstance(username, str) or not 1 <= len(username) <= 4 * USERNAME_MAX or any(
        "\ud800" <= char <= "\udfff" or char == "\x00" for char in username
    ):  # (PostgreSQL refuses a NUL in a query outright: an error there, not a miss)
        return ()
    keys = {unicodedata.normalize("NFKC", username).casefold()}
    with contextlib.suppress(InvalidUsername):
        keys.add(normalize_username(username, allow_guest=True)[1])
    return tuple(sorted(keys))


def check_password_rules(password: str) -> str:
    """The form of ``password`` to hash (:func:`prepare_password`); raise
    :class:`InvalidPassword` unless it may be set.

    >>> for p in ("123456789", "password1", "mahjong-4-ever"):
    ...     try:
    ...         _ = check_password_rules(p)
    ...         print(p, "ok")
    ...     except InvalidPassword:
    ...         print(p, "refused")
    123456789 refused
    password1 refused
    mahjong-4-ever ok
    """
    prepared = prepare_password(password)
    if not PASSWORD_MIN <= len(prepared) <= PASSWORD_MAX:
        raise InvalidPassword(
            f"the password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long"
        )
    if zxcvbn.zxcvbn(prepared[:_ZXCVBN_MAX])["score"] == 0:
        raise InvalidPassword(
            "this password is too common or too easy to guess; "
            "add a few uncommon words or characters"
        )
    return prepared


_OPAQUE_STRING = precis_i18n.get_profile("OpaqueString")


def prepare_password(password: str) -> str:
    """The form of a password that is hashed and compared: RFC 8265's OpaqueString.

    One password, however the keyboard spelled it: NFC, and non-ASCII spaces as
    ASCII spaces.  Raises :class:`InvalidPassword` for what that profile refuses
    (control characters, invisible format characters, unassigned code points).

    >>> prepare_password("cafe\u0301 au lait") == prepare_password("caf\u00e9 au lait")
    True
    >>> prepare_password("mah\u3000jong!")
    'mah jong!'
    >>> try:
    ...     prepare_password("tab\\there")
    ... except InvalidPassword as refused:
    ...     print(refused)
    the password may not contain U+0009 (a control or invisible character)
    """
    if not isinstance(password, str):
        raise InvalidPassword("the password must be text")
    if any("\ud800" <= char <= "\udfff" for char in password):
        raise InvalidPassword("the password must be valid Unicode text")
    try:
        return str(_OPAQUE_STRING.enforce(password))
    except UnicodeError as exc:
        refused = _refused_character(exc, password)
        if refused is None:
            raise InvalidPassword("the password must not be empty") from exc
        raise InvalidPassword(f"the password may not contain U+{ord(refused):04X} "
                              "(a control or invisible character)") from exc


def _refused_character(exc: UnicodeError, password: str) -> str | None:
    """The character OpaqueString refused, if it names one (empty input names none)."""
    start = getattr(exc, "start", None)
    if isinstance(start, int) and 0 <= start < len(password):
        return password[start]
    return None


def password_forms(password: str) -> tuple[str, ...]:
    """The forms in which a typed password is compared with a stored hash, in order.

    The prepared form (:func:`prepare_password`), then the text as typed if that
    differs: hashes set before passwords were prepared (December 2026) are of the
    typed text, and a login that matches one is re-hashed in the prepared form.

    >>> password_forms("mahjong-4-ever")
    ('mahjong-4-ever',)
    >>> [len(form) for form in password_forms("cafe\u0301-au-lait")]
    [12, 13]
    """
    try:
        prepared = prepare_password(password)
    except InvalidPassword:
        return (password,)
    return (prepared,) if prepared == password else (prepared, password)


@functools.cache
def _reserved_keys() -> tuple[frozenset[str], str]:
    """The skeletons of the reserved names, and of the guests' prefix.  Made at the first
    name checked, not at import: the look-alike table behind skeletons takes a tenth of a
    second to build, which every process (``serve``, a node, each CLI command) would pay
    at its start."""
    return (frozenset(username_skeleton(name) for name in RESERVED_USERNAMES),
            username_skeleton(GUEST_PREFIX))


def new_guest_name() -> str:
    """A fresh guest name such as ``guest_3f9a1c2b`` (valid only for guests)."""
    return f"{GUEST_PREFIX}_{secrets.token_hex(4)}"


def new_token() -> str:
    """A new opaque session token (43 URL-safe characters)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """The stored form of a session token: SHA-256, hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()
