"""The service's list of findings that never leave a roll valid is the verdict's own.

The service keeps no vision code, so the list is written out in `rolls_batch`; this reads
the findings the verdict and the edge make, with their status, from their source, and fails
when a new no-roll or review finding is added there and not here (a `valid` roll carrying it
would settle)."""

from __future__ import annotations

import re
from pathlib import Path

from dicecall.api.services.rolls_batch import NOT_VALID_CODES

ROOT = Path(__file__).resolve().parents[2]
FINDING = re.compile(r'Reason\(\s*(f?)"([a-z_{}]+)",\s*([A-Za-z_]+)')


def _findings() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in [*ROOT.joinpath("vision").glob("*.py"), *ROOT.joinpath("edge").glob("*.py")]:
        for is_f, code, status in FINDING.findall(path.read_text()):
            found.setdefault(code.split("{")[0] if is_f else code, set()).add(status)
    return found


def test_every_no_roll_or_review_finding_holds_a_valid_roll():
    found = _findings()
    assert len(found) >= 15, found  # the pattern still matches how findings are made
    not_valid = {c for c, s in found.items() if s & {"NO_ROLL", "REVIEW"}}
    assert not_valid == NOT_VALID_CODES
    # rest_on_<zone>: review or no roll by game (its status is a variable), never valid
    assert found["rest_on_"] == {"status"}
    assert {c for c, s in found.items() if s == {"VALID"}}.isdisjoint(NOT_VALID_CODES)
