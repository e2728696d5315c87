#!/bin/sh
# Install wuhan-mahjong with its server into a new virtual environment.
#
# These are the container image's install steps (deploy/Dockerfile runs this
# script), the steps of an install on a plain machine (deploy/wuhan-mahjong.service),
# and what CI runs in a fresh virtual environment (tests/test_packaging_deploy.py),
# so the three cannot drift apart.
#
#   deploy/install.sh PREFIX [EXTRAS]
#
#   PREFIX     the virtual environment to create, e.g. /opt/wuhan-mahjong
#   EXTRAS     the extras to install (default: server,postgres,redis)
#
# Environment:
#   PYTHON     the interpreter of the environment (default: python3)
#   VENV_ARGS  more arguments of `python -m venv` (e.g. --system-site-packages)
#   PIP_ARGS   more arguments of every pip call (e.g. "--no-index --find-links DIR"
#              to install from a local wheel folder, with no network)
set -eu

PREFIX=${1:?usage: deploy/install.sh PREFIX [EXTRAS]}
EXTRAS=${2:-server,postgres,redis}
PYTHON=${PYTHON:-python3}
VENV_ARGS=${VENV_ARGS:-}
PIP_ARGS=${PIP_ARGS:-}
SRC=$(cd "$(dirname "$0")/.." && pwd)
WHEELS=$(mktemp -d)
trap 'rm -rf "$WHEELS"' EXIT

step() { echo "install.sh: $*"; }

step "virtual environment $PREFIX ($("$PYTHON" --version 2>&1))"
# shellcheck disable=SC2086  # VENV_ARGS and PIP_ARGS are lists of words
"$PYTHON" -m venv $VENV_ARGS "$PREFIX"
PY="$PREFIX/bin/python"

step "wheel of $SRC"
# built by $PYTHON: the new environment's own setuptools may be too old (PEP 639 needs 77)
# shellcheck disable=SC2086
"$PYTHON" -m pip wheel --quiet --disable-pip-version-check $PIP_ARGS --no-deps --wheel-dir "$WHEELS" "$SRC"
WHEEL=$(ls "$WHEELS"/wuhan_mahjong-*.whl)

step "install $(basename "$WHEEL") [$EXTRAS]"
# shellcheck disable=SC2086
"$PY" -m pip install --quiet --disable-pip-version-check $PIP_ARGS "$WHEEL[$EXTRAS]"

step "check"
"$PREFIX/bin/wuhan-mahjong" --version
# the server stack imports, and the settings load (pydantic-settings is there)
"$PY" -c "import wuhan_mahjong.server.app, wuhan_mahjong.store"
"$PREFIX/bin/wuhan-mahjong" serve --print-config >/dev/null
case ",$EXTRAS," in *,postgres,*) "$PY" -c "import psycopg" ;; esac
case ",$EXTRAS," in *,redis,*) "$PY" -c "import redis" ;; esac
step "done: $PREFIX/bin/wuhan-mahjong serve"
