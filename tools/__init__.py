"""LLM-facing tool sets: thin, validated wrappers over geocore, registered by name."""

from tools.registry import UnknownToolsetError, get_tools, get_toolset, toolset, toolset_names

__all__ = ["UnknownToolsetError", "get_tools", "get_toolset", "toolset", "toolset_names"]
