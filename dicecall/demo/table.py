"""One demo table: its bundle and truth, its ids and secret, its player, and what happened.

The demo's surveillance desk lives here too. A roll the service holds for review (623a.9(c))
is decided the way a floorperson would, by looking at the table; the demo looks at the
bundle's truth instead: it confirms or corrects the faces of a throw that was valid, and
voids one that was not. Every such decision is printed as the demo's, never as the camera's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from .players import Player, describe
from .show import settlement_lines

DATA = Path(__file__).resolve().parent / "data"


def load_truth(bundle: str) -> dict:
    return json.loads((DATA / bundle / "truth.json").read_text())


@dataclass
class DemoTable:
    bundle: str
    name: str
    game: str
    table_id: str
    device_id: str
    secret: str
    player: Player
    surveillance: httpx.Client
    truth: dict
    reads: dict[str, dict] = field(default_factory=dict)  # roll_id -> read event + throw
    matched: dict[int, list[str]] = field(default_factory=dict)  # throw index -> roll ids
    answers: dict[str, dict] = field(default_factory=dict)  # roll_id -> latest RollOut
    pending: set[str] = field(default_factory=set)  # held or queued at the service
    reviews: list[dict] = field(default_factory=list)

    @property
    def tag(self) -> str:
        return f"[{self.name:<14}]"

    @property
    def folder(self) -> Path:
        return DATA / self.bundle

    def throw_at(self, t_s: float) -> dict | None:
        """The throw whose dice were at rest at source time `t_s` (seconds)."""
        rest_ms = self.truth["timing"]["rest_s"] * 1000
        for th in self.truth["throws"]:
            if th["t_rest_ms"] <= t_s * 1000 <= th["t_rest_ms"] + rest_ms + 1:
                return th
        return None

    def on_read(self, ev: dict) -> dict | None:
        # The frame that settled the still run lies in the rest period; the frame read may be
        # the run's first (settle.read_early), which can be a last frame of the flight that
        # the motion frame cannot tell from the rest.
        throw = self.throw_at(ev.get("settled_t", ev["t"]))
        self.reads[ev["roll_id"]] = {"event": ev, "throw": throw}
        if throw is not None:
            self.matched.setdefault(throw["index"], []).append(ev["roll_id"])
        return throw

    def on_answer(self, roll_id: str, resp: dict, echo) -> None:
        """Prints the service's answer; reviews, re-bets and follows queued rolls."""
        self.answers[roll_id] = resp
        for line in settlement_lines(self.tag, resp):
            echo(line)
        status = resp["status"]
        if status in ("held", "queued"):
            self.pending.add(roll_id)
        if status == "held":
            self.review(roll_id, echo)
        elif status == "settled":
            self.top_up(echo)

    def top_up(self, echo) -> None:
        before = len(self.player.refused)
        placed = self.player.top_up()
        if placed:
            echo(f"{self.tag} wagers placed: " + ", ".join(describe(w) for w in placed))
        for name, code, section in self.player.refused[before:]:
            echo(f"{self.tag} wager refused by the rules: {name}: {code} {section}")

    def review(self, roll_id: str, echo) -> None:
        """Decides a held roll from the bundle's truth, then follows the rolls behind it."""
        throw = (self.reads.get(roll_id) or {}).get("throw")
        truth = throw["truth"] if throw else None
        camera = self.answers[roll_id]["faces"]
        if truth is not None and truth["status"] == "valid":
            body = ({"action": "confirm"} if truth["faces"] == camera else
                    {"action": "correct", "faces": truth["faces"]})
        else:
            body = {"action": "no_roll"}
        body["note"] = "demo surveillance: decided from the bundle's truth"
        r = self.surveillance.post(f"/v1/rolls/{roll_id}/review", json=body)
        if r.status_code == 422 and body["action"] != "no_roll":
            # The engine refused the faces (e.g. an Extra Roll after a misread first throw
            # expects another number of dice): the desk voids the roll instead.
            refused = r.json()
            body = {"action": "no_roll", "note": f"faces refused: {refused.get('code')}"}
            r = self.surveillance.post(f"/v1/rolls/{roll_id}/review", json=body)
        r.raise_for_status()
        what = body["action"] + (f" {body['faces']}" if "faces" in body else "")
        echo(f"{self.tag} surveillance (demo, from the truth): {what}")
        self.reviews.append({"roll_id": roll_id, **body})
        self.pending.discard(roll_id)
        self.answers[roll_id] = r.json()
        if r.json()["status"] == "settled":
            for line in settlement_lines(self.tag, r.json())[1:]:
                echo(line)
        self.follow(echo)
        self.top_up(echo)

    def follow(self, echo) -> None:
        """Queued rolls settle once no roll is held; prints each as it leaves the queue."""
        for roll_id in sorted(self.pending, key=lambda r: self.answers[r]["seq"]):
            if roll_id not in self.pending:
                continue
            now = self.surveillance.get(f"/v1/rolls/{roll_id}").raise_for_status().json()
            if now["status"] == self.answers[roll_id]["status"]:
                continue
            self.pending.discard(roll_id)
            self.on_answer(roll_id, now, echo)
