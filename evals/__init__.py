"""Evaluation: conditions, runner, run store, statistics, reports and the compare CLI."""
