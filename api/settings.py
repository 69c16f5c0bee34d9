"""Service settings from `DICECALL_*` environment variables (pydantic-settings).

Every bound has a description, so `dicecall serve --help` and the docs can list them.
"""

from __future__ import annotations

import difflib
import os
import secrets
import time
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr, TypeAdapter, ValidationError, field_validator
from pydantic_settings import BaseSettings, EnvSettingsSource, SettingsConfigDict


def _lax(*args, **kwargs):
    # Code and command lines give a path as a string.
    return Field(*args, strict=False, **kwargs)


class _EnvByType(EnvSettingsSource):
    """The environment holds only strings: each is parsed by its field's type before the
    strict check. Recent pydantic-settings do this themselves under strict=True; the
    versions pyproject allows (>= 2.2) do not."""

    def prepare_field_value(self, field_name, field, value, value_is_complex):
        value = super().prepare_field_value(field_name, field, value, value_is_complex)
        if isinstance(value, str):
            try:
                return TypeAdapter(field.annotation).validate_python(value)
            except ValidationError:
                return value  # the strict check refuses it, naming the setting
        return value


class Settings(BaseSettings):
    """The game-resolution service's configuration."""

    # strict, as edge/config.py and vision/config.py: a value handed over as the wrong type
    # ("0.05" in code or a file) is refused; the environment is parsed by type (_EnvByType).
    # An error never quotes the value it refuses: database_url may carry a password, and
    # secret_key is one.
    model_config = SettingsConfigDict(env_prefix="DICECALL_", extra="forbid", strict=True,
                                      hide_input_in_errors=True)

    database_url: str = Field(
        "sqlite:///./dicecall.db",
        description="SQLAlchemy URL; SQLite runs in WAL mode, PostgreSQL via psycopg 3 "
                    "(postgresql+psycopg://...).")
    secret_key: SecretStr | None = Field(
        None, description="Server key that device secrets are derived from; when unset it "
                          "is read from (or created in) key_file.")
    key_file: Path = _lax(Path("./dicecall.key"), description="Where the server key lives "
                           "when secret_key is not set (created 0600 on first start).")
    replay_window_s: float = Field(30.0, gt=0, le=600, description="Accepted clock skew of "
                                   "signed device requests, seconds, both directions.")
    max_body_bytes: int = Field(4_000_000, ge=1024, le=64_000_000,
                                description="Largest request body accepted (413 above).")
    max_jpeg_bytes: int = Field(1_500_000, ge=1024, le=16_000_000,
                                description="Largest evidence JPEG accepted, decoded bytes.")
    evidence_dir: Path = _lax(Path("./evidence"), description="Evidence JPEGs, stored by "
                               "their sha256.")
    sse_poll_s: float = Field(1.0, gt=0, le=30, description="How often the event stream "
                              "looks for events written by other processes.")
    sse_heartbeat_s: float = Field(15.0, gt=0, le=300, description="Comment line sent on an "
                                   "idle event stream to keep proxies from closing it.")
    sqlite_synchronous: str = Field("NORMAL", pattern="^(NORMAL|FULL)$", description="SQLite "
                                    "durability: NORMAL (WAL) survives a killed process, FULL "
                                    "also a power loss, at an fsync per commit.")
    db_pool_size: int = Field(8, ge=1, le=64, description="Connections per process "
                              "(PostgreSQL).")
    migrate_on_start: bool = Field(True, description="Run `alembic upgrade head` in the "
                                   "lifespan (serve does it before starting anyway).")
    fairness_alpha: float = Field(0.001, gt=0, lt=0.5, description="Significance below "
                                  "which a die's face counts raise a fairness alert "
                                  "(chi-square against a fair die; dice inspection 603a.13).")
    shift_hours: float = Field(8.0, gt=0, le=24, description="Length of a shift in the "
                               "console: the default range of history and fairness.")
    dice_max_age_hours: float = Field(24.0, gt=0, le=24, description="How long a dice set "
                                      "may stay in service before it is overdue; the rules "
                                      "allow at most 24 h (623a.7(d), 668a.3(b)(1), "
                                      "675a.3(b)(1)), a house may set less.")
    dice_warn_hours: float = Field(1.0, ge=0, le=24, description="How long before its "
                                   "deadline a dice set shows as due soon (0: never).")
    label_min_confidence: float = Field(0.9, gt=0, le=1, description="Rolls with a die read "
                                        "below this confidence go to the labeling queue.")

    @classmethod
    def settings_customise_sources(cls, settings_cls, init_settings, env_settings,
                                   dotenv_settings, file_secret_settings):
        return init_settings, _EnvByType(settings_cls), dotenv_settings, file_secret_settings

    @field_validator("secret_key")
    @classmethod
    def _key_not_blank(cls, v: SecretStr | None) -> SecretStr | None:
        # An empty DICECALL_SECRET_KEY= would make every device secret and CSRF token an
        # HMAC under an empty (public) key.
        if v is not None and not v.get_secret_value().strip():
            raise ValueError("secret_key is empty; unset DICECALL_SECRET_KEY to use key_file, "
                             "or set a real key")
        return v

    def server_key(self) -> bytes:
        """The key device secrets derive from (bytes); creates key_file when needed.

        Raises:
            ValueError: key_file exists but holds no key (empty or blank).
        """
        if self.secret_key is not None:
            return self.secret_key.get_secret_value().encode()
        path = self.key_file
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            # O_EXCL: two workers starting together must not write two different keys.
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                # Another worker created it a moment ago: give it time to write the key.
                for _ in range(20):
                    if path.read_text().strip():
                        break
                    time.sleep(0.05)
                return self._read_key(path)
            with os.fdopen(fd, "w") as fh:
                fh.write(secrets.token_hex(32))
        return self._read_key(path)

    @staticmethod
    def _read_key(path: Path) -> bytes:
        key = path.read_text().strip()
        if not key:
            raise ValueError(f"key file {path} is empty: restore the server key (device "
                             "secrets derive from it) or remove the file to create a new one "
                             "(every device must then be bound again)")
        return key.encode()


# DICECALL_* variables read outside Settings: the bench's statement counter
# (bench/sql_count.py, imported into the service it starts) and the test suite's own.
OTHER_VARIABLES = ("DICECALL_SQL_COUNT_FILE", "DICECALL_TEST_PG", "DICECALL_CONSOLE_SHOTS")


class UnknownSetting(ValueError):
    """A DICECALL_* variable that nothing reads: most likely a typo of one that is."""


def check_environment(environ: Mapping[str, str] = os.environ) -> None:
    """Refuses unknown DICECALL_* variables: pydantic-settings ignores them, so a mistyped
    DICECALL_DATABSE_URL would silently run on the default ./dicecall.db.

    Raises:
        UnknownSetting: naming each unknown variable and the closest known one.
    """
    known = [f"DICECALL_{name.upper()}" for name in Settings.model_fields]
    known += OTHER_VARIABLES
    problems = []
    for name in sorted(environ):
        upper = name.upper()  # pydantic-settings reads them case-insensitively
        if upper.startswith("DICECALL_") and upper not in known:
            close = difflib.get_close_matches(upper, known, n=1, cutoff=0.6)
            hint = f" (did you mean {close[0]}?)" if close else ""
            problems.append(f"{name}{hint}")
    if problems:
        raise UnknownSetting("unknown environment variable " + ", ".join(problems) +
                             "; the known ones are listed in docs/api.md (Settings)")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    check_environment()
    return Settings()
