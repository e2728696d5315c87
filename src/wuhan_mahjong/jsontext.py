"""JSON text from outside (a record, a view, an action, an option) decoded with one rule:
whatever the standard parser cannot decode is a :class:`json.JSONDecodeError`, nesting too
deep for it and a number of more digits than ``int`` converts included, and so is a string
that is not Unicode text.

``json.loads`` recurses once per nested array or object, so a line of 100,000 ``[`` raises
``RecursionError``, which is no ``ValueError``: every caller that answered malformed JSON
with a clear error would end in a traceback instead.  And it decodes ``"\\ud800"`` (half
of a surrogate pair) to a string that can be neither printed nor stored as UTF-8, so the
error came later, where the string was echoed (:class:`LoneSurrogateError`).

>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads("[" * 100_000)
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: nested too deeply: line 1 column 1 (char 0)
>>> loads('["\\ud83c\\udc04", "\\ud800"]')
Traceback (most recent call last):
...
wuhan_mahjong.jsontext.LoneSurrogateError: a string holds a lone surrogate: line 1 column 1 (char 0)
>>> loads("[" + "9" * 5000 + "]")
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: a number of too many digits: line 1 column 1 (char 0)
>>> loads(b'["\\xed\\xa0\\x80"]')  # the same half pair, in UTF-8
Traceback (most recent call last):
...
wuhan_mahjong.jsontext.LoneSurrogateError: a string holds a lone surrogate: line 1 column 1 (char 0)
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["LoneSurrogateError", "has_lone_surrogate", "loads"]

#: where a surrogate can come from: a ``\\uD800``-``\\uDFFF`` escape, or the code point itself
#: (bytes are decoded with ``surrogatepass``, so its UTF-8 form gets through too)
_MAY_HOLD = re.compile(r"\\u[dD][89a-fA-F]|[\ud800-\udfff]")
_MAY_HOLD_BYTES = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")  # (the UTF-8 of one)


class LoneSurrogateError(json.JSONDecodeError):
    """A string of the text holds half of a surrogate pair: it is no Unicode text, and
    printing, storing or sending it would fail."""


def has_lone_surrogate(obj: Any) -> bool:
    """Whether a parsed JSON value holds a string that is not valid Unicode (a ``\\udXXX``
    escape without its pair)."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, with nesting too deep for the parser (message ``nested too
    deeply``) and a lone surrogate (:class:`LoneSurrogateError`) raised as a
    ``json.JSONDecodeError`` like any other malformed text."""
    try:
        obj = json.loads(text)
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply", _doc(text), 0) from None
    except json.JSONDecodeError:
        raise
    except UnicodeDecodeError:
        raise json.JSONDecodeError("not UTF-8 text", _doc(text), 0) from None
    except ValueError:  # int() refuses a number of more than 4,300 digits
        raise json.JSONDecodeError("a number of too many digits", _doc(text), 0) from None
    may_hold = (_MAY_HOLD.search(text) if isinstance(text, str)
                else _MAY_HOLD_BYTES.search(text))
    if may_hold and has_lone_surrogate(obj):
        raise LoneSurrogateError("a string holds a lone surrogate", _doc(text), 0)
    return obj


def _doc(text: str | bytes) -> str:
    return text if isinstance(text, str) else text.decode("utf-8", "replace")
