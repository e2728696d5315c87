"""The installable client (a Progressive Web App): the service worker and the manifest.

``GET /sw.js`` is ``web/sw.js`` with its ``BUILD`` filled in: the client's version, a hash
of every file of the client's folder, and the files the worker keeps (the "shell": every
file of the folder but ``sw.js`` itself, the page as ``./``).  The worker keeps them in a
cache named after the version, so a phone opens the client while the server cannot be
reached.  Any change to a file of the folder changes the version, hence the bytes of
``/sw.js``: the browser, which compares them on each visit, installs the new worker, which
keeps the new files under a new name and deletes the old cache.  No build step: the server
computes it, once per change of the folder (the files' sizes and modification times).

``GET /manifest.webmanifest`` is the folder's file with its registered media type
(``application/manifest+json``), whatever the system's MIME table says.

Both answer with the client files' cache headers (``Cache-Control: no-cache``): a browser
asks each time, so it sees a new worker at once (browsers cap a worker script's HTTP cache
at 24 hours anyway).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

__all__ = ["MANIFEST", "MANIFEST_TYPE", "SERVICE_WORKER", "ShellBuild", "pwa_routes", "service_worker",
           "shell_build"]

SERVICE_WORKER = "sw.js"
"""The worker's source in the client's folder, served at ``/sw.js`` (scope ``/``)."""
MANIFEST = "manifest.webmanifest"
MANIFEST_TYPE = "application/manifest+json"
BUILD_MARK = re.compile(r"/\*BUILD\*/.*?/\*BUILD\*/", re.DOTALL)
"""Where ``sw.js`` holds its build: a JSON object between two ``/*BUILD*/`` comments (the
file as it is in the folder has an empty one, so it stays valid JavaScript)."""
VERSION_LENGTH = 16
"""Hex digits of the SHA-256 kept in the version (64 bits: no collision in practice)."""


@dataclass(frozen=True)
class ShellBuild:
    """What ``/sw.js`` is built from: the version and the shell's files, as URLs relative to
    the worker's scope (``./`` for ``index.html``, the page the server serves at ``/``)."""

    version: str
    files: tuple[str, ...]


def _client_files(folder: Path) -> list[Path]:
    """Every file of the client's folder, sorted, but hidden ones (``.DS_Store``, an editor's
    swap file): what a deployment serves."""
    return sorted(p for p in folder.rglob("*")
                  if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))


def _signature(folder: Path) -> tuple[tuple[str, int, int], ...]:
    """The files' names, sizes and modification times: cheap to read on every request, and
    changed by any edit or deployment, so the hash is recomputed only then."""
    out = []
    for path in _client_files(folder):
        st = path.stat()
        out.append((path.relative_to(folder).as_posix(), st.st_size, st.st_mtime_ns))
    return tuple(out)


def shell_build(folder: Path) -> ShellBuild:
    """The version (a hash of every file's name and content, ``sw.js`` included, so a change
    of the worker's own code renames its cache too) and the files to keep."""
    digest = hashlib.sha256()
    files: list[str] = []
    for path in _client_files(folder):
        name = path.relative_to(folder).as_posix()
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        if name == SERVICE_WORKER:
            continue  # the browser keeps the worker itself
        files.append("./" if name == "index.html" else quote(name))
    return ShellBuild(digest.hexdigest()[:VERSION_LENGTH], tuple(files))


def service_worker(folder: Path, build: ShellBuild | None = None) -> str:
    """``sw.js`` with ``build`` (by default the folder's own) in place of its ``BUILD``."""
    build = build or shell_build(folder)
    source = (folder / SERVICE_WORKER).read_text(encoding="utf-8")
    filled = json.dumps({"version": build.version, "files": list(build.files)}, ensure_ascii=False)
    text, count = BUILD_MARK.subn(lambda _: f"/*BUILD*/{filled}/*BUILD*/", source, count=1)
    if count != 1:
        raise ValueError(f"{folder / SERVICE_WORKER} has no /*BUILD*/ … /*BUILD*/ to fill in")
    return text


class _WorkerSource:
    """``/sw.js`` for one folder, rebuilt only when the folder's signature changes."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._built: tuple[tuple[tuple[str, int, int], ...], str, str] | None = None

    def _current(self) -> tuple[str, str]:
        signature = _signature(self.folder)
        if self._built is None or self._built[0] != signature:
            build = shell_build(self.folder)
            self._built = (signature, build.version, service_worker(self.folder, build))
        return self._built[1], self._built[2]

    async def current(self) -> tuple[str, str]:
        """The version and the worker's text (read off the event loop: it hashes the folder)."""
        return await asyncio.to_thread(self._current)


def pwa_routes(folder: Path, headers: Mapping[str, str]) -> list[Route]:
    """``/sw.js`` and ``/manifest.webmanifest`` of the client's folder, with ``headers``
    (the client files' ``Cache-Control``).  Without the files (a server built without the
    client) both answer 404."""
    worker = _WorkerSource(folder)

    async def sw(request: Request) -> Response:
        if not (folder / SERVICE_WORKER).is_file():
            return PlainTextResponse("Not Found", status_code=404)
        version, text = await worker.current()
        etag = f'"{version}"'
        out = {**headers, "ETag": etag}
        if etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=out)
        return Response(text, media_type="text/javascript; charset=utf-8", headers=out)

    async def manifest(request: Request) -> Response:
        path = folder / MANIFEST
        if not path.is_file():
            return PlainTextResponse("Not Found", status_code=404)
        return FileResponse(path, media_type=MANIFEST_TYPE, headers=dict(headers))

    return [Route(f"/{SERVICE_WORKER}", sw, methods=["GET"]),
            Route(f"/{MANIFEST}", manifest, methods=["GET"])]
