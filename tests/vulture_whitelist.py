"""Names vulture (``[tool.vulture]`` in pyproject, run by tests/test_dead_code.py) cannot see used. Never run:
vulture only reads the names. Everything else it reports is dead code: delete it rather than list it here."""

from agents.gemini_tier import GeminiWithTier
from agents.llama_server import engine_params
from agents.protocol import GenerationProtocol
from agents.scripted import ScriptedChatModel
from agents.trace import ToolCallEvent
from evals.analysis import ConditionSummary
from evals.batch import BatchChatModel, BatchRecord
from evals.judge import store_agreement
from geocore import sphere, terrain
from geocore.networks import Window
from geocore.polygons import PlanarRegion
from geocore.trajectories import TrajectoryStats
from tasks import gpsbench
from tasks.answer_kinds import CoordinateAnswer, NumberAnswer
from tasks.base import GeneratedTask
from tasks.examples import Replies
from tasks.geotemp.extract import TimeAnswer
from tasks.geotemp.probe import ProbeTarget
from tasks.gpsbench import regions
from tasks.gpsbench.boundary_analysis import ContinentsTarget
from tasks.gpsbench.distance import DistanceTarget
from tasks.gpsbench.parsing import AreaAnswer
from tasks.gpsbench.polygon_area import AreaTarget
from tasks.gpsbench.proximity import ProximityTarget
from tasks.gpsbench.route_analysis import RouteTarget
from tasks.gpsbench.spatial_patterns import OutlierTarget
from tasks.gtr.parsing import ForecastAnswer
from tasks.gtr.scenes import Pass
from tasks.gtr.scoring import ForecastGold
from tasks.stbench.world import Blocks

# Record fields that are data: written to results, traces, tool replies or golds, read back by name (JSON keys,
# TypedDict keys) or by the tests, never as attributes in the package.
ToolCallEvent.parent_id
ConditionSummary.parse_failure_rate
ConditionSummary.mean_error
ConditionSummary.samples_with_tool_calls
ConditionSummary.stop_reasons
Window.pass_earliest_s
Window.pass_latest_s
PlanarRegion.repaired
TrajectoryStats.n_points
TrajectoryStats.straight_line_m
TrajectoryStats.detour_ratio
TrajectoryStats.median_speed_mps
TimeAnswer.snippet
Pass.time_s
Blocks.street_m
ContinentsTarget.continents
DistanceTarget.miles
AreaAnswer.area_km2
AreaAnswer.perimeter_km
AreaTarget.area_km2
AreaTarget.perimeter_km
AreaTarget.paper_area_km2
AreaTarget.convex
ProximityTarget.distances_km
OutlierTarget.distances_km
RouteTarget.on_route
RouteTarget.detour_pct
ForecastAnswer.segments
ForecastGold.segments
ProbeTarget.offset_minutes

# What a task yields for the adversarial test corpus (tests/tasks/adversarial.py reads it through getattr, so a
# task that yields none is left out), and the writing hints only the corpus templates read.
GeneratedTask.example_replies
Replies.param
Replies.free_text

# A parameter its caller passes by name: LangChain calls _generate(..., run_manager=...).
ScriptedChatModel._generate.run_manager
BatchChatModel._agenerate  # LangChain's async entry point
BatchRecord.input_file_id  # kept in batches.json: the uploaded requests, for inspection

# Public vocabularies and kernels the tests check the package against (the GPSBench task lists and sub-regions,
# the natural-region kinds) and geocore.sphere's vectorised bearing, one of issue 14's kernels.
gpsbench.PURE_TASKS
gpsbench.APPLIED_TASKS
gpsbench.PROBE_TASKS
gpsbench.LEVEL_TASKS
gpsbench.FORM_TASKS
regions.SUBREGIONS
terrain.REGION_KINDS
sphere.initial_bearing_np
GenerationProtocol.answer_tokens  # stored in the run spec (results.json): the answer budget asked
NumberAnswer.working  # final_answer schema fields: the model's arguments, read through model_dump
CoordinateAnswer.latitude, CoordinateAnswer.longitude

# Settings read by the C++ side, not by Python: xllamacpp.CommonParams fields set by
# agents.llama_server.engine_params, and http.server's protocol_version of the embedded endpoint's handler.
_engine_params = engine_params
_engine_params.n_parallel, _engine_params.n_ctx, _engine_params.kv_unified, _engine_params.fit_params
_engine_params.cache_prompt, _engine_params.n_threads, _engine_params.hostnames, _engine_params.endpoint_props
_engine_params.ui, _engine_params.protocol_version, _engine_params.cache_idle_slots

# The agreement command (python -m tests.tasks.agreement --judge, outside vulture's paths) stores what runs print.
store_agreement

# Imported by name (agents.providers._langchain_class) when a google/ model runs at --service-tier flex.
GeminiWithTier
