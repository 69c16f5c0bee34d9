"""Game flow per table: how many dice the next read must show, and which throw it is.

- Craps / Mini-Craps: every settled scene is one throw of two dice (623a.8).
- Props & Hops: two dice in the open shaker (668a.3); the read happens only when the lid is
  off and the dice are still, which the settle detector enforces (the lid in view is a
  blocked scene, not a roll).
- High Roll Dice: the first throw shows every die (10, or 6 in the variation: 675a.3(a),
  675a.6(e)). When a seat bought an Extra Roll, the service answers the first throw with a
  settlement event `extra_roll:N` and the next throw is the Extra Roll of the N rethrown
  dice (675a.4(g)); the dice held in the throw box are outside the play zone (`held`). The
  round ends with `round_over`. The service's word is authoritative: after an answer that
  settled nothing (held for review, queued) or after a restart, the phase is taken from the
  device endpoint `GET /v1/tables/{id}/device` once it reports no held roll, instead of
  guessing (edge/phase.py).

Pure: it only consumes the service's answers; the runner does the I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

HIGH_ROLL = {"high-roll-dice": 10, "high-roll-dice-6": 6}


@dataclass(frozen=True)
class Expect:
    dice: int
    phase: str  # "throw" (Craps, Props & Hops), "first" or "extra" (High Roll)


class GameFlow:
    def __init__(self, game: str) -> None:
        self.game = game
        self.all_dice = HIGH_ROLL.get(game, 2)
        self._extra: int | None = None  # dice to rethrow in the Extra Roll, when due
        self.uncertain = False  # an answer did not tell the phase: ask the service

    @property
    def high_roll(self) -> bool:
        return self.game in HIGH_ROLL

    def expect(self) -> Expect:
        if not self.high_roll:
            return Expect(2, "throw")
        if self._extra:
            return Expect(self._extra, "extra")
        return Expect(self.all_dice, "first")

    def on_ack(self, response: dict) -> None:
        """Updates the phase from the service's answer to a roll (RollOut JSON)."""
        if not self.high_roll:
            return
        settlement = response.get("settlement")
        if response.get("status") != "settled" or not settlement:
            # no_roll keeps the phase (rethrow, 675a.4(b)) and leaves an open question open (a
            # no roll is recorded even behind a held roll); held/queued: the review decides.
            if response.get("status") != "no_roll":
                self.uncertain = True
            return
        self.uncertain = False
        for event in settlement.get("events", []):
            if event.startswith("extra_roll:"):
                self._extra = int(event.split(":", 1)[1])
            elif event == "round_over":
                self._extra = None

    def on_device_state(self, state: dict) -> None:
        """Takes the phase from `GET /v1/tables/{id}/device` (see api/routes/device.py)."""
        if not self.high_roll:
            return
        self._extra = state["expected_dice"] if state.get("extra_roll") else None
        self.uncertain = False
