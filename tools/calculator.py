"""The ``calculator`` tool set: one generic tool that evaluates an arithmetic expression (a baseline beside the
domain tool sets). Expressions go through :mod:`simpleeval` (an AST walker with a whitelist of operators and
names, bounded powers and string lengths); model text is never given to ``eval``."""

from __future__ import annotations

import ast
import math

from langchain_core.tools import BaseTool
from pydantic import BaseModel, Field
from simpleeval import DEFAULT_OPERATORS, InvalidExpression, SimpleEval

from tools._common import make_tool, result
from tools.registry import toolset

MAX_EXPRESSION = 2000
FUNCTIONS = {name: getattr(math, name) for name in (
    "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "sqrt", "exp", "log", "log10", "log2", "radians", "degrees", "hypot", "floor", "ceil", "fabs", "fmod",
    "copysign", "trunc")} | {"abs": abs, "round": round, "min": min, "max": max, "pow": pow, "int": int,
                              "float": float}
NAMES = {"pi": math.pi, "e": math.e, "tau": math.tau, "inf": math.inf}


class CalculatorArgs(BaseModel):
    expression: str = Field(max_length=MAX_EXPRESSION, description=(
        "One arithmetic expression with the numbers of your problem, e.g. 'sqrt(3**2 + 4**2)'"))


def evaluate(expression: str) -> float | int:
    """The value of ``expression`` (numbers, + - * / // % **, comparisons, the math functions of
    :data:`FUNCTIONS` and the constants of :data:`NAMES`); ValueError with the reason otherwise."""
    evaluator = SimpleEval(operators=dict(DEFAULT_OPERATORS), functions=FUNCTIONS, names=NAMES)
    try:
        ast.parse(expression.strip(), mode="eval")  # one expression: statements (x = 1) are refused
        value = evaluator.eval(expression.strip())
    except (InvalidExpression, ArithmeticError, TypeError, ValueError, SyntaxError, KeyError) as exc:
        raise ValueError(f"cannot evaluate {expression[:80]!r}: {type(exc).__name__}: {exc}") from exc
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"the expression gives {type(value).__name__}, not a number")
    return value


def calculator(expression: str) -> str:
    """Evaluate one arithmetic expression: + - * / ** %, parentheses, pi, e, and math functions (sin, cos,
    tan, asin, acos, atan, atan2 in radians; radians(), degrees(), sqrt, exp, log, log10, hypot, floor, ceil,
    abs, round, min, max). Returns JSON {"result"}."""
    return result(result=evaluate(expression))


@toolset("calculator", "A generic calculator: arithmetic, trigonometry and common math functions")
def calculator_tools() -> list[BaseTool]:
    """A generic calculator: arithmetic, trigonometry and common math functions."""
    return [make_tool(calculator, CalculatorArgs)]
