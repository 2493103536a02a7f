"""Task families: seeded generators, prompts, answer parsers and scorers."""

from tasks.base import GeneratedTask, Task
from tasks.records import Message, Parsed, Sample, Score
from tasks.registry import Variant, get_task, register_task, resolve_tasks, task_names

__all__ = [
    "GeneratedTask", "Message", "Parsed", "Sample", "Score", "Task", "Variant",
    "get_task", "register_task", "resolve_tasks", "task_names",
]
