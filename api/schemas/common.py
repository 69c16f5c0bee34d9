"""Shapes shared by several resources: errors, ids, the strict base model."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

# Free text holds no NUL (PostgreSQL's text refuses it; the console and the audit chain show
# it); a name or a code is one line of visible text.
NO_NUL = r"^[^\x00]*$"
ONE_LINE = r"^[^\x00-\x1f\x7f]*$"
UUID_PATTERN = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
Face = Annotated[int, Field(ge=1, le=6, description="A die's face, 1-6.")]
Sha256 = Annotated[str, Field(pattern=r"^[0-9a-f]{64}$", description="Lowercase hex sha256.")]


class Strict(BaseModel):
    """Base of every request model: no coercion, unknown fields refused."""

    model_config = ConfigDict(extra="forbid", strict=True)


class Out(BaseModel):
    """Base of every response model."""

    model_config = ConfigDict(extra="forbid")


class ErrorOut(Out):
    """Every error response. Engine refusals keep their code and regulation section."""

    code: str = Field(description="Machine-readable reason, e.g. bet_closed, bad_signature.")
    message: str = Field(description="What went wrong, for a person.")
    section: str | None = Field(None, description="The rule that forbids it, e.g. 623a.4(a).")
    errors: list[dict[str, Any]] | None = Field(None, description="Field errors (422).")


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses` entries for the given error statuses."""
    text = {400: "Bad request", 401: "Missing or invalid credentials",
            403: "Not allowed for this role or device", 404: "Unknown table, roll or wager",
            409: "Refused by the table's state or the rules (code and section say why)",
            413: "Request body too large", 422: "Invalid request (malformed JSON, a field "
            "out of range, or a wager the rules refuse)"}
    return {s: {"model": ErrorOut, "description": text[s]} for s in statuses}
