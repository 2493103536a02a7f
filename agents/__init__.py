"""Agents: model resolution, the intrinsic answerer, the LangGraph tool agent, the embedded model server."""

from agents.intrinsic import answer_intrinsic
from agents.model_spec import create_chat_model, parse_model
from agents.models import DEFAULT_MODEL, GenerationSettings
from agents.tool_agent import AgentLimits, ToolAgent
from agents.trace import AgentResult, ModelCallEvent, ToolCallEvent, TraceEvent

__all__ = [
    "DEFAULT_MODEL", "AgentLimits", "AgentResult", "GenerationSettings", "ModelCallEvent", "ToolAgent",
    "ToolCallEvent", "TraceEvent", "answer_intrinsic", "create_chat_model", "parse_model",
]
