"""Refusals raised by the games engine.

Every refusal names the rule that forbids the action, so an integrator (and the audit log)
can see why a wager or a roll was not accepted.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base class of every refusal; `code` is machine-readable, `section` cites the rule."""

    def __init__(self, code: str, message: str, section: str | None = None) -> None:
        self.code = code
        self.section = section
        self.message = message
        cite = f" ({section})" if section else ""
        super().__init__(f"{code}: {message}{cite}")

    def as_dict(self) -> dict[str, str | None]:
        return {"code": self.code, "message": self.message, "section": self.section}


class WagerRefused(EngineError):
    """A wager that cannot be placed, reduced or removed."""


class RollRefused(EngineError):
    """A roll that cannot be settled: wrong number of dice, a face outside 1-6."""


class OptionsRefused(EngineError):
    """A table configuration that the regulations do not allow."""
