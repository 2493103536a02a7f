"""Helpers shared by tool sets: argument types with explicit units and ranges, JSON results."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from langchain_core.tools import StructuredTool
from pydantic import BaseModel, Field

Lat = Annotated[float, Field(ge=-90, le=90, description="Latitude in decimal degrees, -90 to 90 (south is negative)")]
Lon = Annotated[float, Field(ge=-180, le=180, description="Longitude in decimal degrees, -180 to 180 (west is negative)")]


def result(**values: Any) -> str:
    """A tool result as compact JSON, floats rounded to 6 decimals."""
    return json.dumps({k: round(v, 6) if isinstance(v, float) else v for k, v in values.items()})


def make_tool(func: Callable[..., str], args: type[BaseModel], name: str | None = None) -> StructuredTool:
    """A LangChain tool whose description is ``func``'s docstring and whose arguments are validated by ``args``."""
    return StructuredTool.from_function(
        func=func, name=name or func.__name__, description=(func.__doc__ or "").strip(), args_schema=args,
    )
