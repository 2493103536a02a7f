"""LLM-facing tool sets: thin, validated wrappers over geocore, registered by name."""

from tools._common import Lat, Lon, make_tool
from tools.registry import UnknownToolsetError, get_tools, get_toolset, toolset, toolset_names

__all__ = ["Lat", "Lon", "UnknownToolsetError", "get_tools", "get_toolset", "make_tool", "toolset", "toolset_names"]
