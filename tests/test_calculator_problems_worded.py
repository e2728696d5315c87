"""What the HTTP calculator (``POST /api/score``, ``POST /api/hand``) sends for a client to
word in its player's language: a rule option out of its range is a problem with its
parameters (not only the English sentence), and the refusal of a hand that has not opened
(开口) names what opens one under the options in force (a 冲杠 does not, with
``direct_kong_opens`` false)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from wuhan_mahjong.server.calculator import calculator_routes

# seat 1 wins self-drawn with one 冲杠 (fed by seat 2) and nothing else melded
DIRECT_ONLY: dict[str, Any] = {
    "profile": "yuanhang", "dealer": 2, "indicator": "1z", "winner": 1, "win_by": "self_draw",
    "winning_tile": "2p",
    "seats": [{"hand": "", "melds": []},
              {"hand": "234m567m345s2p",
               "melds": [{"type": "kong", "kind": "direct", "tiles": "8888p", "from": 2}]},
              {"hand": "", "melds": []}, {"hand": "", "melds": []}],
}


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(Starlette(routes=calculator_routes()))


def with_options(**options: Any) -> dict[str, Any]:
    out = copy.deepcopy(DIRECT_ONLY)
    out["options"] = options
    return out


@pytest.mark.parametrize(("options", "params"), [
    ({"cap": 20000}, {"option": "cap", "value": "20000", "low": 0, "high": 10000}),
    ({"cap": -1}, {"option": "cap", "value": "-1", "low": 0, "high": 10000}),
    ({"turn_seconds": 1}, {"option": "turn_seconds", "value": "1", "low": 5, "high": 60}),
])
def test_an_option_out_of_its_range_is_a_problem_with_the_range(
        client: TestClient, options: dict[str, Any], params: dict[str, Any]) -> None:
    """``cap`` 20000 was a ``malformed`` 400: the page could only show the English sentence."""
    r = client.post("/api/score", json=with_options(**options))
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["params"] == {"problem": "option_range", **params}
    assert f"option '{params['option']}'" in error["message"]  # the CLI's sentence, as before
    query = {"hand": "234m567m345s2p", "melds": ["kong:8888p"], "indicator": "1z", "options": options}
    r = client.post("/api/hand", json=query)
    assert r.status_code == 400
    assert r.json()["error"]["params"] == {"problem": "option_range", **params}


def test_an_unknown_option_stays_malformed(client: TestClient) -> None:
    r = client.post("/api/score", json=with_options(no_such_option=1))
    assert r.status_code == 400
    assert r.json()["error"]["params"] == {"problem": "malformed"}


def test_not_opened_names_what_opens_under_the_options(client: TestClient) -> None:
    """With ``direct_kong_opens`` false the refusal said "a chi, peng or 冲杠 first"."""
    r = client.post("/api/score", json=with_options(direct_kong_opens=False))
    assert r.status_code == 422
    body = r.json()
    assert body["refusal"] == {"code": "not_opened", "params": {"opens": "chi_peng"}}
    assert "a chi or peng first" in body["reason"] and "chi, peng or 冲杠" not in body["reason"]
    closed = copy.deepcopy(DIRECT_ONLY)  # a concealed kong opens nothing, under any options
    closed["seats"][1]["melds"] = [{"type": "kong", "kind": "concealed", "tiles": "8888p"}]
    r = client.post("/api/score", json=closed)
    assert r.status_code == 422
    body = r.json()
    assert body["refusal"] == {"code": "not_opened", "params": {"opens": "chi_peng_kong"}}
    assert "a chi, peng or 冲杠 first" in body["reason"]
    assert client.post("/api/score", json=DIRECT_ONLY).status_code == 200  # the 冲杠 opens
