"""Opening the NumPy ``.npz`` files of the research tools (datasets, network weights), with
one clear error for a file that is none: ``np.load`` raises whatever its guess of the
format meets (a pickle refusal, ``BadZipFile``, ``EOFError``) or returns a single array."""

from __future__ import annotations

import zipfile
import zlib

import numpy as np
from numpy.lib.npyio import NpzFile

__all__ = ["DAMAGED", "open_npz"]

DAMAGED = (ValueError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)
"""What reading an array of a truncated or damaged ``.npz`` raises."""


def open_npz(path: str, what: str, error: type[ValueError] = ValueError) -> NpzFile:
    """The ``.npz`` file at ``path``; ``error`` naming the file as no ``what`` file when it
    is none.  A missing file is an ``OSError``."""
    try:
        f = np.load(path, allow_pickle=False)
    except (ValueError, EOFError, zipfile.BadZipFile) as e:
        why = "" if "pickle" in str(e) else f": {e}"  # (NumPy's guess for any other file)
        raise error(f"{path}: not a {what} file (.npz){why}") from None
    if not isinstance(f, NpzFile):
        raise error(f"{path}: not a {what} file (.npz): a single array")
    return f
