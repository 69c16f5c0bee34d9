"""Service settings are strict like every other config (DESIGN: strict pydantic config): a
value handed over in code or a file as the wrong type is refused, while the environment,
where every value is a string, still parses."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from dicecall.api.settings import Settings


@pytest.mark.parametrize(("field", "value"), [
    ("fairness_alpha", "0.05"), ("max_body_bytes", "4000000"), ("max_body_bytes", 4e6),
    ("migrate_on_start", "no"), ("database_url", 5),
])
def test_a_wrong_type_given_directly_is_refused(field, value):
    with pytest.raises(ValidationError, match=field):
        Settings(**{field: value, "secret_key": "k"})


def test_the_environment_still_parses(monkeypatch, tmp_path):
    for key, value in (("FAIRNESS_ALPHA", "0.05"), ("MAX_BODY_BYTES", "2000000"),
                       ("MIGRATE_ON_START", "false"), ("EVIDENCE_DIR", str(tmp_path / "ev")),
                       ("KEY_FILE", str(tmp_path / "key")), ("SECRET_KEY", "k" * 16),
                       ("SQLITE_SYNCHRONOUS", "FULL"), ("DATABASE_URL", "sqlite:///x.db")):
        monkeypatch.setenv(f"DICECALL_{key}", value)
    s = Settings()
    assert (s.fairness_alpha, s.max_body_bytes, s.migrate_on_start) == (0.05, 2_000_000, False)
    assert s.evidence_dir == tmp_path / "ev" and s.key_file == tmp_path / "key"
    assert s.secret_key.get_secret_value() == "k" * 16 and s.sqlite_synchronous == "FULL"
    monkeypatch.setenv("DICECALL_SHIFT_HOURS", "abc")  # still refused, naming the setting
    with pytest.raises(ValidationError, match="shift_hours"):
        Settings()
    monkeypatch.setenv("DICECALL_SHIFT_HOURS", "25")  # and the bounds still hold
    with pytest.raises(ValidationError, match="shift_hours"):
        Settings()


def test_paths_may_be_given_as_strings(tmp_path):
    s = Settings(evidence_dir=str(tmp_path), key_file=str(tmp_path / "k"), secret_key="k")
    assert s.evidence_dir == tmp_path and s.key_file == tmp_path / "k"


@pytest.mark.parametrize(("field", "value", "secret"), [
    ("database_url", b"postgresql+psycopg://alice:pw-7Qx2@db/dicecall", "pw-7Qx2"),
    ("secret_key", 98765432109876543210, "98765432109876543210"),
])
def test_a_refused_value_is_not_quoted(field, value, secret):
    """A database URL carries its password and the server key is one: an error names the
    setting, never the value, which would reach a log or a terminal."""
    with pytest.raises(ValidationError, match=field) as err:
        Settings(**{"secret_key": "k", field: value})
    assert secret not in str(err.value)
