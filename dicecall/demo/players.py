"""Sample players: the wagers the demo places through the HTTP API, as an integrator would.

Each table has a few seats with a standing habit (the pass line and the field in Craps, a
Hop and a Double in Props & Hops, a Like Kind with an Extra Roll in High Roll). After every
settled roll the player tops the layout up again: what was decided is bet again, what rides
stays. A wager the rules refuse at that moment (a come bet before a point, a bet after "no
more bets") is reported and skipped; that refusal is the service doing its job.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

#: bundle -> (game, table name, house options)
TABLES = {
    "craps": ("craps", "Craps 1", {}),
    "props-and-hops": ("props-and-hops", "Props & Hops 1", {}),
    "high-roll": ("high-roll-dice", "High Roll 1", {}),
}

Wish = tuple[str, int, int, dict]  # name, cents, seat, params

_CRAPS_ALWAYS: list[Wish] = [("field", 500, 2, {}), ("hardway", 500, 3, {"number": 8}),
                             ("place_to_win", 600, 4, {"number": 6}),
                             ("place_to_win", 600, 4, {"number": 8})]
_PROPS: list[Wish] = [("field", 500, 1, {}), ("any_number", 500, 2, {"dice": [5, 6]}),
                      ("double", 500, 3, {"face": 6}), ("hop_the_top", 500, 4, {}),
                      ("one_six_and_under", 500, 5, {})]
# 675a.2(e)(1): a seat joins with a Pip Street Wager; its Like Kind and Extra Roll wagers
# equal it (675a.2(e)(2),(3)); the Millionaire Row is at most $1 (675a.2(e)(4)).
_HIGH: list[Wish] = [("pip_street", 500, 1, {"face": 6}), ("like_kind", 500, 1, {"count": 3}),
                     ("extra_roll", 500, 1, {}), ("pip_street", 500, 2, {"face": 5}),
                     ("like_kind", 500, 2, {"count": 4}), ("extra_roll", 500, 2, {}),
                     ("pip_street", 500, 3, {"face": 1}),
                     ("millionaire_row", 100, 3, {"count": 9})]


def _key(name: str, seat: int, params: dict) -> tuple:
    return name, seat, tuple(sorted((k, tuple(v) if isinstance(v, list) else v)
                                    for k, v in params.items()))


@dataclass
class Player:
    """Places and tops up one table's sample wagers.

    Attributes:
        placed: wagers accepted, refused: (wager, code, section) refused by the rules.
    """

    client: httpx.Client
    table_id: str
    game: str
    placed: list[dict] = field(default_factory=list)
    refused: list[tuple[str, str, str]] = field(default_factory=list)

    def _table(self) -> dict:
        return self.client.get(f"/v1/tables/{self.table_id}").raise_for_status().json()

    def _wishes(self, table: dict) -> list[Wish]:
        state = table["state"]
        if self.game == "craps":
            wishes = list(_CRAPS_ALWAYS)
            # 623a.3: the pass line is bet on the come-out; a come bet once a point is on.
            wishes.append(("pass", 1000, 1, {}) if state.get("point") is None
                          else ("come", 500, 1, {}))
            return wishes
        if not state.get("betting_open", True) or state.get("held_face") is not None:
            return []  # 668a.3(e), 675a.4(a): after "no more bets" and during the Extra Roll
        return list(_PROPS if self.game == "props-and-hops" else _HIGH)

    def top_up(self) -> list[dict]:
        """Places every wish not already on the layout; returns the wagers placed now (the
        refusals are appended to `refused`)."""
        table = self._table()
        state = table["state"]
        wishes = self._wishes(table)
        if not wishes:
            return []
        layout = self.client.get(f"/v1/tables/{self.table_id}/wagers").raise_for_status().json()
        have = {_key(w["name"], w["seat"], w["params"]) for w in layout}
        comes = [w for w in layout if w["name"] == "come"]
        now = []
        for name, amount, seat, params in wishes:
            if name == "come":
                # A come bet moves to its number (623a.3(c)); a new one goes in the come box
                # while fewer than three ride.
                if len(comes) >= 3 or any(w.get("point") is None for w in comes):
                    continue
            elif _key(name, seat, params) in have:
                continue
            r = self.client.post(f"/v1/tables/{self.table_id}/wagers",
                                 json={"name": name, "amount": amount, "seat": seat,
                                       "params": params})
            if r.status_code == 201:
                now.append(r.json()["wager"])
            else:
                err = r.json()
                self.refused.append((name, err.get("code", str(r.status_code)),
                                     err.get("section") or ""))
        self.placed += now
        if self.game != "craps" and state.get("betting_open", True):
            # The dealer's "no more bets" for this round; the round number guards a late call.
            self.client.post(f"/v1/tables/{self.table_id}/rounds/current/no-more-bets",
                             json={"round": table["round"]["number"]})
        return now


def describe(w: dict) -> str:
    """`place_to_win(number=6) seat 4 $6.00`."""
    params = ",".join(f"{k}={v}" for k, v in w.get("params", {}).items())
    return f"{w['name']}{f'({params})' if params else ''} seat {w['seat']} {money(w['amount'])}"


def money(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) / 100:,.2f}"
