"""Every decision the server offers has an id (the view's ``decision``); an answer
carrying another id is refused with ``stale_decision`` and changes nothing."""

from __future__ import annotations

import asyncio
from typing import Any

from .harness import Client, Server, guest_token, seat_four


async def _my_turn(clients: list[Client]) -> tuple[Client, dict[str, Any]]:
    """The client whose turn it is now, and his view."""
    while True:
        for c in clients:
            while not c.inbox.empty():
                msg = c.inbox.get_nowait()
                if msg["type"] == "state" and msg["view"]["phase"] == "turn" and msg["view"]["legal_actions"]:
                    return c, msg["view"]
        await asyncio.sleep(0.02)


def test_an_answer_to_another_decision_is_refused(server: Server) -> None:
    tokens = [guest_token(server) for _ in range(4)]

    async def scenario() -> None:
        clients = await seat_four(server, tokens, hands=1, turn_seconds=60, claim_window_seconds=30)
        c, view = await asyncio.wait_for(_my_turn(clients), 20)
        d = view["decision"]
        discard = next(a for a in view["legal_actions"] if a["type"] == "discard")
        # an id that is not open (a future one here) is refused, naming the open one
        await c.send({"type": "action", "action": discard, "decision": d + 1, "ref": "early"})
        err = await c.expect("error")
        assert (err["code"], err["ref"]) == ("stale_decision", "early")
        assert f"decision {d} is open now" in err["message"]
        # the right id plays the discard (sent back as the view gave it, tiles and all)
        await c.send({"type": "action", "action": discard, "decision": d, "ref": "now"})
        after = await c.expect("state")
        while after["view"]["decision"] == d:
            after = await c.expect("state")
        assert after["view"]["seats"][view["viewer"]]["discards"][-1]["tile"] == discard["tile"]
        # the same click again, late: refused, not applied to the claim window now open
        await c.send({"type": "action", "action": {"type": "pass"}, "decision": d, "ref": "late"})
        err = await c.expect("error")
        assert (err["code"], err["ref"]) == ("stale_decision", "late")
        for each in clients:
            await each.close()

    asyncio.run(scenario())
