"""OpenAPI for bodies a route reads itself (a signed body must be verified before it is
parsed): the model's schema is referenced here and added to the components by the app."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel

_MODELS: dict[str, type[BaseModel]] = {}


def request_body(model: type[BaseModel]) -> dict[str, Any]:
    """`openapi_extra` that documents `model` as the JSON request body."""
    _MODELS[model.__name__] = model
    schema: dict[str, Any] = {"$ref": f"#/components/schemas/{model.__name__}"}
    examples = (model.model_config.get("json_schema_extra") or {}).get("examples", [])
    content: dict[str, Any] = {"schema": schema}
    if examples:
        content["example"] = examples[0]
    return {"requestBody": {"required": True, "content": {"application/json": content}}}


def install(app: FastAPI) -> None:
    """Builds the schema once, with the self-parsed bodies' models in the components."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(title=app.title, version=app.version, routes=app.routes,
                             description=app.description)
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, model in _MODELS.items():
            body = model.model_json_schema(ref_template="#/components/schemas/{model}")
            for def_name, definition in body.pop("$defs", {}).items():
                components.setdefault(def_name, definition)
            components[name] = body
        app.openapi_schema = schema
        return schema

    app.openapi = openapi
