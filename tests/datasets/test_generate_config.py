"""GenerateConfig is strict like every other config (DESIGN: strict pydantic config): in code
or a bench script, "3" for a count or "2" for a multiplier is a mistake, refused naming the
field; the output folder may still be given as a string."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from dicecall.datasets.generate import GenerateConfig

BASE = {"scene": "shaker", "count": 3, "out": "x"}


@pytest.mark.parametrize(("field", "value"), [
    ("count", "3"), ("count", 3.0), ("seed", "7"), ("width", 640.0), ("rare", "2"),
    ("stack_offset", float("nan")), ("force", {"lean": "1"}), ("force", {"lean": float("inf")}),
])
def test_a_wrong_type_is_refused_naming_the_field(field, value):
    with pytest.raises(ValidationError, match=field):
        GenerateConfig(**{**BASE, field: value})


def test_the_output_folder_may_be_a_string_and_numbers_native():
    cfg = GenerateConfig(**{**BASE, "rare": 2, "force": {"lean": 1}})
    assert cfg.out == Path("x") and cfg.rare == 2.0 and cfg.force == {"lean": 1.0}
