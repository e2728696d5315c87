"""Where the server's settings come from: flags, ``WUHAN_MAHJONG_*`` variables, a TOML file.

Every field of :class:`~wuhan_mahjong.server.config.ServerConfig` (and of
:class:`ProcessConfig`, the serving process's own settings) is a setting,
derived from the dataclass fields at run time, so a field added there is
configurable everywhere with no other change:

=================  =====================================  =========================
field              command-line flag                      environment variable
=================  =====================================  =========================
``claim_hold``     ``--claim-hold 1.5``                   ``WUHAN_MAHJONG_CLAIM_HOLD``
=================  =====================================  =========================

and the key ``claim_hold = 1.5`` in the TOML file named by ``--config`` (or
``$WUHAN_MAHJONG_CONFIG``).  A flag beats the environment, which beats the
file, which beats the field's default.  Values are validated by
``pydantic-settings`` against the field's type and then by the dataclass
itself; every error is one :class:`SettingsError` naming where the bad value
came from.  ``none`` sets an optional setting to ``None``; a list setting takes
JSON (``["a", "b"]``), and on the command line also comma-separated words.

Only :func:`load_settings` needs pydantic (the ``[server]`` extra): the field
descriptions (:func:`settings_fields`) are plain dataclass introspection, so
``wuhan-mahjong serve --help`` works in any install.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import json
import os
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .. import jsontext
from .config import ServerConfig

__all__ = ["CONFIG_ENV", "ENV_PREFIX", "SETTINGS_FILE_MAX", "ProcessConfig", "Setting", "Settings",
           "SettingsError", "load_settings", "settings_fields"]

ENV_PREFIX = "WUHAN_MAHJONG_"
CONFIG_ENV = ENV_PREFIX + "CONFIG"
"""Environment variable naming the TOML settings file when ``--config`` is not given."""

NONE_WORD = "none"
"""The word that sets an optional setting to ``None`` (in a flag or a variable)."""

LogLevel = Literal["critical", "error", "warning", "info", "debug"]


@dataclass(frozen=True)
class ProcessConfig:
    """Settings of the serving process rather than of the game server itself."""

    log_level: LogLevel = "info"
    """Log level of the server and of uvicorn: critical, error, warning, info or debug."""
    log_format: Literal["text", "json"] = "text"
    """The server's log lines (its event log included) on standard error: text, or one JSON
    object per line (docs/operations.md)."""
    gc_tuning: bool = True
    """Freeze the start-up heap and raise the garbage collector's thresholds (docs/server.md)."""


SETTINGS_FILE_MAX = 1 << 20
"""The largest settings file read (bytes): one is a few lines, and a file named by mistake
(a log, ``/dev/zero``) was read whole into memory."""


class SettingsError(ValueError):
    """A setting's value is invalid or a settings file cannot be read; the message says where."""


@dataclass(frozen=True)
class Setting:
    """One configurable field: its name, type, default and description."""

    name: str
    owner: type
    type: Any
    default: Any
    doc: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()

    @property
    def optional(self) -> bool:
        """``None`` is one of its values."""
        return type(None) in typing.get_args(self.type)

    @property
    def base(self) -> Any:
        """The type without ``| None``."""
        args = [a for a in typing.get_args(self.type) if a is not type(None)]
        if typing.get_origin(self.type) in (typing.Union, types.UnionType) and len(args) == 1:
            return args[0]
        return self.type

    @property
    def choices(self) -> tuple[Any, ...] | None:
        """The values of a ``Literal`` setting, else ``None``."""
        return typing.get_args(self.base) if typing.get_origin(self.base) is Literal else None

    @property
    def is_bool(self) -> bool:
        return self.base is bool

    @property
    def is_collection(self) -> bool:
        origin = typing.get_origin(self.base)
        return origin in (list, tuple, set, frozenset, dict) or self.base in (list, tuple, set, frozenset)


@dataclass(frozen=True)
class Settings:
    """The result of :func:`load_settings`."""

    server: ServerConfig
    process: ProcessConfig
    sources: dict[str, str]
    """Field name -> where its value came from (a flag, a variable, ``FILE``), for fields not at
    their default."""


def _field_docs(cls: type) -> dict[str, str]:
    """The attribute doc strings (the string right below a field) of a dataclass."""
    import inspect

    try:
        tree = ast.parse(inspect.getsource(cls))
    except (OSError, TypeError, SyntaxError):  # no source (e.g. a zip without .py files)
        return {}
    docs: dict[str, str] = {}
    body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
    for node, after in itertools.pairwise(body):
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and isinstance(after, ast.Expr) and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)):
            docs[node.target.id] = " ".join(after.value.value.split())
    return docs


def settings_fields() -> list[Setting]:
    """Every setting: the fields of :class:`ServerConfig`, then of :class:`ProcessConfig`."""
    out: list[Setting] = []
    for cls in (ServerConfig, ProcessConfig):
        hints = typing.get_type_hints(cls)
        docs = _field_docs(cls)
        for f in dataclasses.fields(cls):
            if not f.init:
                continue
            if f.default is not dataclasses.MISSING:
                default = f.default
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            else:
                default = None
            out.append(Setting(f.name, cls, hints[f.name], default, docs.get(f.name, "")))
    return out


def _from_text(setting: Setting, text: str) -> Any:
    """A flag's or a variable's text as the input pydantic validates."""
    if setting.optional and text.strip().lower() == NONE_WORD:
        return None
    if setting.is_collection:
        stripped = text.strip()
        if stripped.startswith(("[", "{")):
            try:
                return jsontext.loads(stripped)
            except json.JSONDecodeError as e:
                raise SettingsError(f"not JSON: {e.msg}") from None
        return [w.strip() for w in stripped.split(",") if w.strip()]
    return text


def _explain(error: Mapping[str, Any]) -> str:
    """One pydantic error as a short phrase, with the bad input."""
    msg = str(error.get("msg", "invalid"))
    if error.get("type") == "extra_forbidden":
        return "unknown setting"
    given = error.get("input")
    return f"{msg} (got {given!r})" if isinstance(given, (str, int, float, bool)) else msg


def _source(s: Setting, flags: Mapping[str, Any], env_names: set[str],
            from_file: Mapping[str, Any], path: Path | None) -> str | None:
    """Where the value of setting ``s`` comes from, or ``None`` for its default."""
    if s.name in flags:
        return s.flag
    if s.env in env_names:
        return f"${s.env}"
    if s.name in from_file:
        return str(path)
    return None


def load_settings(flags: Mapping[str, Any] | None = None,
                  config_file: str | Path | None = None) -> Settings:
    """The settings from ``flags`` (field name -> text or value, only those given), the
    ``WUHAN_MAHJONG_<FIELD>`` environment variables and the TOML ``config_file`` (default
    ``$WUHAN_MAHJONG_CONFIG``; none if neither), in that order of precedence."""
    import tomllib

    from pydantic import ValidationError, create_model
    from pydantic.fields import FieldInfo
    from pydantic_settings import (
        BaseSettings,
        EnvSettingsSource,
        PydanticBaseSettingsSource,
        SettingsConfigDict,
        TomlConfigSettingsSource,
    )
    from pydantic_settings import SettingsError as SourceError

    fields = {s.name: s for s in settings_fields()}
    unknown = sorted(set(flags or {}) - set(fields))
    if unknown:
        raise SettingsError(f"unknown setting {unknown[0]!r}")
    given: dict[str, Any] = {}
    for name, value in (flags or {}).items():
        try:
            given[name] = _from_text(fields[name], value) if isinstance(value, str) else value
        except SettingsError as e:
            raise SettingsError(f"{fields[name].flag}: {e}") from None

    path_text = str(config_file) if config_file is not None else os.environ.get(CONFIG_ENV) or None
    path = Path(path_text).expanduser() if path_text else None
    from_file: dict[str, Any] = {}
    if path is not None:
        # read once here for clear errors: pydantic-settings skips a missing file silently
        try:
            with open(path, "rb") as fh:
                data = fh.read(SETTINGS_FILE_MAX + 1)
            if len(data) <= SETTINGS_FILE_MAX:
                from_file = tomllib.loads(data.decode())
        except OSError as e:
            raise SettingsError(f"cannot read the settings file {path}: {e.strerror}") from None
        except tomllib.TOMLDecodeError as e:
            raise SettingsError(f"{path}: not valid TOML: {e}") from None
        except UnicodeDecodeError as e:  # tomllib decodes the whole file first
            raise SettingsError(f"{path}: not valid TOML: not UTF-8 text (byte "
                                f"{e.object[e.start]:#04x} at offset {e.start})") from None
        except RecursionError:  # arrays or tables nested past Python's recursion limit
            raise SettingsError(f"{path}: not valid TOML: nested too deeply") from None
        except ValueError as e:  # int() of more digits than it converts (not a TOMLDecodeError)
            raise SettingsError(f"{path}: not valid TOML: a number of too many digits "
                                f"({str(e)[:60]})") from None
        if len(data) > SETTINGS_FILE_MAX:
            raise SettingsError(f"{path}: larger than {SETTINGS_FILE_MAX // 1024} KiB: no "
                                "settings file (a wrong --config?)")

    class _Env(EnvSettingsSource):
        """The environment read as the flags are: a list is JSON or comma-separated
        (:func:`_from_text`), and text that cannot be decoded is an error naming the variable."""

        def decode_complex_value(self, field_name: str, field: FieldInfo, value: Any) -> Any:
            setting = fields[field_name]
            try:
                return _from_text(setting, value)
            except SettingsError as e:
                raise SettingsError(f"${setting.env}: {e}") from None

    class _Base(BaseSettings):
        model_config = SettingsConfigDict(
            env_prefix=ENV_PREFIX, env_parse_none_str=NONE_WORD, extra="forbid",
            toml_file=path, validate_default=False, allow_inf_nan=False)

        @classmethod
        def settings_customise_sources(
            cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource,
            env_settings: PydanticBaseSettingsSource, dotenv_settings: PydanticBaseSettingsSource,
            file_secret_settings: PydanticBaseSettingsSource,
        ) -> tuple[PydanticBaseSettingsSource, ...]:
            # the first source that has a value wins: flags, the environment, the TOML file
            sources: list[PydanticBaseSettingsSource] = [init_settings, _Env(settings_cls)]
            if path is not None:
                sources.append(TomlConfigSettingsSource(settings_cls))
            return tuple(sources)

    definitions: dict[str, Any] = {s.name: (s.type, s.default) for s in fields.values()}
    model = create_model("WuhanMahjongSettings", __base__=_Base, **definitions)
    env_names = {k.upper() for k in os.environ}
    try:
        values = model(**given).model_dump()
    except SourceError as e:  # a variable the environment source could not decode
        cause = e.__cause__
        raise SettingsError(str(cause) if isinstance(cause, SettingsError) else str(e)) from None
    except ValidationError as e:
        err = e.errors()[0]
        name = str(err["loc"][0]) if err.get("loc") else "?"
        if name not in fields:
            raise SettingsError(f"{path}: unknown setting {name!r}") from None
        where = _source(fields[name], given, env_names, from_file, path) or "default"
        raise SettingsError(f"{where}: {name}: {_explain(err)}") from None
    try:
        server = ServerConfig(**{k: v for k, v in values.items() if fields[k].owner is ServerConfig})
        process = ProcessConfig(**{k: v for k, v in values.items() if fields[k].owner is ProcessConfig})
    except (TypeError, ValueError) as e:
        raise SettingsError(f"invalid settings: {e}") from None
    sources = {n: w for n, s in fields.items()
               if (w := _source(s, given, env_names, from_file, path)) is not None}
    return Settings(server, process, sources)
