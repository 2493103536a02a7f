"""``python -m evals.compare --list``: the tasks, tool sets, suites, conditions, model providers and prices."""

from __future__ import annotations

from agents.catalog import model_table
from agents.local_model import MODELS
from agents.models import DEFAULT_MODEL
from agents.providers import PROVIDERS
from evals.conditions import condition_names
from evals.pricing import BUILTIN_PRICES, PriceTable
from evals.specs import dataset_tasks
from evals.suites import describe_suites
from geocore.registry import load_plugins
from tasks.registry import get_task, task_names
from tools.registry import describe_toolsets


def print_listing() -> None:
    by_family: dict[str, list[str]] = {}
    for name in task_names():
        by_family.setdefault(name.split(".", 1)[0], []).append(name)
    print("tasks:")
    for family, names in by_family.items():
        print(f"  {family}: " + ", ".join(names))
    for name in dataset_tasks():
        kinds = getattr(get_task(name), "dataset_kinds", ())
        print(f"  {name} reads --dataset PATH" + (f"; --dataset-kind from: {', '.join(kinds)}" if kinds else ""))
    print("tool sets:")
    for name, desc in describe_toolsets().items():
        print(f"  {name}: {desc}")
    print("suites (--suite NAME):")
    for name, desc in describe_suites().items():
        print(f"  {name}: {desc}")
    print("conditions: " + ", ".join(condition_names()))
    print("model providers:")
    for name in PROVIDERS.names():
        print(f"  {name}/...: {PROVIDERS.get(name).description}")
    print("local models: " + ", ".join(f"local/{m}" for m in MODELS) + f" (default {DEFAULT_MODEL})")
    print("model table (agents/data/models.toml; --reasoning-effort levels each takes; a model not listed gets "
          "conservative defaults and a warning):")
    for key, card in model_table().items():
        price = PriceTable().price(key.removesuffix("*"))
        cost = f"; ${price.input:g} / ${price.output:g} per 1M in/out" if price else ""
        print(f"  {key}: {card.describe()}{cost}")
    print("priced models (--prices FILE.toml adds or overrides): " + ", ".join(BUILTIN_PRICES))
    for line in load_plugins():
        print(f"not loaded: {line}")
