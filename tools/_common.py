"""Helpers shared by tool sets: argument types with explicit units and ranges, JSON results, and the lean form
of a tool that the model reads (its prompt schema)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field, PrivateAttr

COORDINATE = "x-coordinate"  # marks latitude/longitude arguments in the JSON schema (see prompt_schema)
Lat = Annotated[float, Field(ge=-90, le=90, description="Latitude in decimal degrees, -90 to 90 (south is negative)",
                             json_schema_extra={COORDINATE: True})]
Lon = Annotated[float, Field(ge=-180, le=180, description="Longitude in decimal degrees, -180 to 180 (west is negative)",
                             json_schema_extra={COORDINATE: True})]
COORDINATES_NOTE = "Coordinates in decimal degrees (south and west negative)."

# Schema keys the model does not need (the arguments are still validated against the full pydantic model when the
# tool runs): titles, defaults (an optional argument is one not "required") and size limits; numeric bounds are
# dropped from an argument whose description states its range in words and inside an argument (its own
# description says what the parts are).
PROMPT_DROPPED_KEYS = frozenset({"title", "default", "minLength", "maxLength", "minItems", "maxItems"})
BOUND_KEYS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
STATES_RANGE = re.compile(r"-?\d")
RETURNS = re.compile(r"\s*\bReturns JSON\b.*", re.DOTALL)


def result(**values: Any) -> str:
    """A tool result as compact JSON, floats rounded to 6 decimals."""
    return json.dumps({k: round(v, 6) if isinstance(v, float) else v for k, v in values.items()})


def prompt_description(doc: str, args: type[BaseModel]) -> str:
    """What the model reads about a tool: its docstring up to "Returns JSON ..." (the model sees each result's
    keys when it gets the result), whitespace collapsed, and :data:`COORDINATES_NOTE` if it takes coordinates."""
    text = " ".join(RETURNS.sub("", doc).split())
    coordinates = f'"{COORDINATE}": true' in json.dumps(args.model_json_schema())
    return f"{text} {COORDINATES_NOTE}" if coordinates else text


def _lean(node: Any, top: bool) -> Any:
    if isinstance(node, list):
        return [_lean(x, False) for x in node]
    if not isinstance(node, dict):
        return node
    if "anyOf" in node:  # Optional[X]: say X (the argument is optional because it is not in "required")
        kinds = [k for k in node["anyOf"] if k.get("type") != "null"]
        if len(kinds) == 1:
            node = {**{k: v for k, v in node.items() if k != "anyOf"}, **kinds[0]}
    if node.get(COORDINATE):  # said once for the tool (COORDINATES_NOTE), not per argument
        return {"type": node.get("type", "number")}
    if "prefixItems" in node:  # a fixed-length tuple such as [lat, lon]: an array of its one item type
        types = {json.dumps(_lean(p, False), sort_keys=True) for p in node["prefixItems"]}
        node = {k: v for k, v in node.items() if k not in ("prefixItems", "items")}
        if len(types) == 1:
            node["items"] = json.loads(types.pop())
    ranged = not top or bool(STATES_RANGE.search(node.get("description", "")))
    out = {}
    for key, value in node.items():
        if key in PROMPT_DROPPED_KEYS or (key == "description" and not top) or (key in BOUND_KEYS and ranged):
            continue
        if key == "properties":
            out[key] = {name: _lean(prop, True) for name, prop in value.items()}
        else:
            out[key] = _lean(value, False)
    return out


def prompt_schema(args: type[BaseModel]) -> dict[str, Any]:
    """The lean JSON schema of a tool's arguments: each argument's type and its description (units and ranges in
    words), nothing else; descriptions nested inside an argument are left to the argument's own, and latitude and
    longitude arguments are bare numbers (:data:`COORDINATES_NOTE` goes into the tool's description instead)."""
    schema = _lean(args.model_json_schema(), False)
    if "$defs" in schema:
        raise ValueError(f"{args.__name__}: nested models are not supported in tool arguments")
    return {"type": "object", "properties": schema.get("properties", {}), "required": schema.get("required", [])}


class LeanTool(StructuredTool):
    """A structured tool whose schema sent to the model is :func:`prompt_schema` of its arguments; calls are
    validated against the full argument model."""

    _prompt_schema: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def tool_call_schema(self) -> Any:  # type: ignore[override]
        return self._prompt_schema


def make_tool(func: Callable[..., str], args: type[BaseModel], name: str | None = None) -> StructuredTool:
    """A LangChain tool described to the model by :func:`prompt_description` of ``func``'s docstring and
    :func:`prompt_schema` of ``args``; its arguments are validated by ``args``."""
    tool = LeanTool.from_function(func=func, name=name or func.__name__,
                                  description=prompt_description(func.__doc__ or "", args), args_schema=args)
    assert isinstance(tool, LeanTool)
    tool._prompt_schema = prompt_schema(args)
    return tool
