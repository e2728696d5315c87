"""JSON text from outside (a record, a view, an action, an option) decoded with one rule:
whatever the standard parser cannot decode is a :class:`json.JSONDecodeError`, nesting too
deep for it included.

``json.loads`` recurses once per nested array or object, so a line of 100,000 ``[`` raises
``RecursionError``, which is no ``ValueError``: every caller that answered malformed JSON
with a clear error would end in a traceback instead.

>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads("[" * 100_000)
Traceback (most recent call last):
...
json.decoder.JSONDecodeError: nested too deeply: line 1 column 1 (char 0)
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads"]


def loads(text: str | bytes) -> Any:
    """``json.loads(text)``, with nesting too deep for the parser raised as a
    ``json.JSONDecodeError`` (message ``nested too deeply``) like any other malformed text."""
    try:
        return json.loads(text)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", doc, 0) from None
