"""Request and response models of the HTTP API (strict pydantic, extra="forbid")."""
