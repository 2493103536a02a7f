"""Model providers: the ``provider`` of ``provider/name`` strings, one registry.

Each provider builds its LangChain chat model, chooses the key it sends (:meth:`Provider.api_key`), starts and
stops its model server where it has one (:meth:`Provider.serve`: the embedded llama.cpp server for ``local/``,
``vllm serve`` for ``vllm/``) and says what names the served model in the model-call cache
(:meth:`Provider.identity`) and which ``tool_choice`` forces a tool call (:attr:`Provider.forced_tool_choice`). A
plug-in adds a provider with ``@PROVIDERS.register(name)`` on an instance.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.metadata
import marshal
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import httpx
from langchain_core.language_models import BaseChatModel

from agents.local_model import default_slots
from agents.models import (
    ANTHROPIC_HOST,
    GOOGLE_HOST,
    OPENAI_HOST,
    GenerationSettings,
    MissingKeyError,
    chat_openai_class,
    host_of,
    http_clients,
    probe_served,
)
from agents.protocol import RESPONSES_INCLUDE, Asked, GenerationProtocol, resolve_protocol
from agents.secrets import add_secret_env, redact
from geocore.registry import Registry

Say = Callable[[str], None]


class ServerUnavailable(RuntimeError):
    """A model server the provider starts could not start (not installed, no GPU, bad model file, timeout)."""


@dataclass(frozen=True)
class Served:
    """Where the model answers: the base URL, a ``watch`` telling why a server this run started died (or None),
    and how it was launched (``launch``, None when reached by URL)."""

    base_url: str | None
    watch: Callable[[], str | None] | None = None
    launch: str | None = None


@dataclass(frozen=True)
class ClientOptions:
    """How a chat model reaches its provider: base URL, key, retries, HTTP transports, reply cap."""

    base_url: str | None
    api_key: str | None
    max_retries: int
    max_reply_bytes: int
    transport: httpx.BaseTransport | None = None
    async_transport: httpx.AsyncBaseTransport | None = None


class Provider:
    """One kind of model (``openai``, ``local``, ...); subclasses override what differs."""

    name: ClassVar[str]
    description: ClassVar[str]
    default_connections: ClassVar[int] = 8
    base_url_hint: ClassVar[str | None] = None  # set: calls need a base URL, the hint says how to give one
    requires_base_url: ClassVar[bool] = False  # a run without --base-url is a usage error
    default_key: ClassVar[str | None] = "not-needed"  # None: the SDK reads its usual environment variable
    # the API host the SDK's own key variable may go to; another base URL gets no key unless --api-key-env names one
    home_host: ClassVar[str | None] = None
    # set: --base-url is refused with this line rather than ignored
    base_url_refusal: ClassVar[str | None] = None
    # what its LangChain model's bind_tools(tool_choice=...) takes to force a tool call; None: it cannot force one
    forced_tool_choice: ClassVar[str | None] = None

    def check(self, name: str, base_url: str | None) -> None:
        """Raise ValueError (one line) for a model this provider cannot run as configured."""
        if self.requires_base_url and not base_url:
            raise ValueError(f"{self.name}/ models need --base-url http://host:port/v1")
        if base_url and self.base_url_refusal:
            raise ValueError(self.base_url_refusal)

    key_envs: ClassVar[tuple[str, ...]] = ()  # where its SDK reads the key when api_key() gives none

    def missing_key(self, base_url: str | None, api_key_env: str | None) -> str | None:
        """Why a call could not be authorised (the SDK would find no key), or None; checked before a run."""
        if not self.key_envs or self.api_key(base_url, api_key_env) is not None:
            return None
        if any(os.environ.get(name) for name in self.key_envs):
            return None
        return (f"{self.name}/ models need a key: set {' or '.join(self.key_envs)} (or give --base-url and "
                "--api-key-env NAME for another server)")

    def api_key(self, base_url: str | None, api_key_env: str | None) -> str | None:
        """The key to send: the variable named by ``api_key_env`` if given; else, for a base URL off the
        provider's :attr:`home_host`, a placeholder (the SDK's own key variable goes to its API only); else the
        provider's default."""
        if api_key_env:
            value = os.environ.get(api_key_env)
            if not value:
                raise MissingKeyError(f"--api-key-env {api_key_env}: that environment variable is not set")
            add_secret_env(api_key_env)  # masked in everything written, whatever the variable's name
            return value
        if self.home_host and base_url and host_of(base_url) != self.home_host:
            return "not-needed"
        return self.default_key

    def protocol(self, name: str, flags: Asked, defaults: Asked) -> GenerationProtocol:
        """The generation protocol this provider sends for ``name`` (:func:`agents.protocol.resolve_protocol`);
        raises :class:`agents.protocol.ProtocolError` for a flag the model cannot take."""
        return resolve_protocol(self.name, name, flags, defaults, llama_like=bool(getattr(self, "llama_like", False)))

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        raise NotImplementedError

    @contextmanager
    def serve(self, name: str, base_url: str | None, *, log_path: Path, tool_call_parser: str | None,
              say: Say, serve_args: Sequence[str] = (), slots: int | None = None,
              threads: int | None = None) -> Iterator[Served]:
        """Start this provider's server for the run (and stop it after; ``slots``: requests it answers at once,
        ``threads``: its CPU threads, where it can be told); by default, the given base URL. ``serve_args`` are
        extra arguments of the server's command line (``vllm serve``)."""
        yield Served(base_url)

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        """What names the served model in the cache key, and None; or (None, why) when it cannot be told (the
        run then does not use the cache). By default the endpoint; a provider with neither an endpoint nor an
        identity of its own (an in-process plug-in) gets no cache."""
        if not served.base_url:
            return None, (f"{self.name}/ does not say what answers its calls; the model-call cache is off for this "
                          "run")
        return {"endpoint": redact(served.base_url)}, None


PROVIDERS: Registry[Provider] = Registry("model provider")


def _keyed(client: ClientOptions) -> dict[str, Any]:
    """``api_key`` for the chat model when there is one to send (else the SDK reads its usual variable)."""
    return {"api_key": client.api_key} if client.api_key is not None else {}


def _langchain_class(module: str, name: str, provider: str) -> Any:
    """A LangChain chat model class of an optional extra; ValueError (one line) when it is not installed."""
    try:
        return getattr(importlib.import_module(module), name)
    except ImportError:
        package = module.replace("_", "-")
        raise ValueError(f"{provider}/ models need {package}: pip install -e '.[providers]'") from None


def _api_identity(provider: str, name: str, served: Served, default_url: str,
                  client: str) -> tuple[dict[str, Any] | None, str | None]:
    """A hosted API's model: its endpoint and the client library's version (the request it builds); an alias
    that moves to newer models (``...-latest``) gets no cache."""
    if name.endswith("latest"):
        return None, (f"{provider}/{name} is an alias that moves to newer models; the model-call cache is off for "
                      "this run")
    try:
        version = importlib.metadata.version(client)
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {"endpoint": redact(served.base_url or default_url), "client": f"{client} {version}"}, None


def _openai_api_kwargs(settings: GenerationSettings) -> dict[str, Any]:
    """ChatOpenAI's arguments for the API the settings pick: the Responses API replays reasoning statelessly
    (``store=False``, encrypted reasoning items included and sent back in order by langchain-openai) and takes
    no ``seed``; chat completions takes ``reasoning_effort``, ``seed`` and ``chat_template_kwargs``."""
    if settings.api == "responses":
        kw: dict[str, Any] = {"use_responses_api": True, "store": False, "include": list(RESPONSES_INCLUDE)}
        if settings.reasoning_effort is not None:
            kw["reasoning"] = {"effort": settings.reasoning_effort}
        return kw
    kw = {"use_responses_api": False, "seed": settings.seed, "reasoning_effort": settings.reasoning_effort,
          "replay_reasoning": settings.replay_reasoning}
    if settings.enable_thinking is not None:
        kw["extra_body"] = {"chat_template_kwargs": {"enable_thinking": settings.enable_thinking}}
    return kw


def register(cls: type[Provider]) -> type[Provider]:
    """Class decorator: register an instance of ``cls`` under its ``name``."""
    PROVIDERS.add(cls.name, cls())
    return cls


class OpenAICompatible(Provider):
    """A server speaking the OpenAI chat API at a base URL."""

    name = "openai-compatible"
    description = "any OpenAI-compatible server, needs --base-url (key: --api-key-env NAME)"
    base_url_hint: ClassVar[str | None] = "pass --base-url http://host:port/v1"
    requires_base_url = True
    llama_like: ClassVar[bool] = True  # llama.cpp-style servers: request fixes (agents.models)
    forced_tool_choice = "required"

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        if not client.base_url and self.base_url_hint:
            raise ValueError(f"{self.name}/ models need a base URL ({self.base_url_hint})")
        # max_tokens is ChatOpenAI's alias of its max_completion_tokens field: mypy (without pydantic's plug-in)
        # knows only field names
        return chat_openai_class()(  # type: ignore[call-arg]
            model=name, base_url=client.base_url, max_tokens=settings.max_tokens, timeout=settings.timeout_s,
            temperature=settings.temperature, max_retries=client.max_retries, **_keyed(client),
            **_openai_api_kwargs(settings),
            **http_clients(self.llama_like, client.transport, client.async_transport, client.max_reply_bytes,
                            settings.timeout_s), **extra)

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        ident: dict[str, Any] = {} if served.launch else {"endpoint": redact(served.base_url) if served.base_url
                                                           else None}
        if not served.base_url:
            return ident, None
        try:
            info = probe_served(served.base_url, name, self.api_key(served.base_url, api_key_env), timeout_s=5.0)
        except (httpx.HTTPError, OSError, ValueError) as exc:
            return None, (f"cannot tell which model {redact(served.base_url)} serves (GET /models: "
                          f"{type(exc).__name__}: {redact(str(exc))[:200]}); the model-call cache is off for this run")
        ident["served"] = {"launch": served.launch, **info} if served.launch else info
        return ident, None


@register
class OpenAI(OpenAICompatible):
    name = "openai"
    description = "OpenAI API (OPENAI_API_KEY)"
    key_envs = ("OPENAI_API_KEY",)
    base_url_hint = None
    requires_base_url = False
    llama_like = False
    default_key = None  # OPENAI_API_KEY, read by the SDK
    home_host = OPENAI_HOST


register(OpenAICompatible)


@register
class Anthropic(Provider):
    name = "anthropic"
    description = "Anthropic API (ANTHROPIC_API_KEY)"
    key_envs = ("ANTHROPIC_API_KEY",)
    default_key = None
    home_host = ANTHROPIC_HOST
    forced_tool_choice = "any"

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        chat = _langchain_class("langchain_anthropic", "ChatAnthropic", self.name)
        kw: dict[str, Any] = {"base_url": client.base_url} if client.base_url else {}
        if settings.thinking is not None:
            kw["thinking"] = settings.thinking
            if settings.reasoning_effort:
                kw["output_config"] = {"effort": settings.reasoning_effort}
        elif settings.thinking_budget:
            kw["thinking"] = {"type": "enabled", "budget_tokens": settings.thinking_budget}
        return chat(model=name, max_tokens=settings.max_tokens, timeout=settings.timeout_s, **kw,
                    temperature=settings.temperature, max_retries=client.max_retries, **_keyed(client), **extra)

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        return _api_identity(self.name, name, served, "https://api.anthropic.com", "langchain-anthropic")


@register
class Google(Provider):
    name = "google"
    description = "Google Gemini API (GOOGLE_API_KEY); --base-url: the API root of a Gemini-compatible endpoint"
    key_envs = ("GOOGLE_API_KEY", "GEMINI_API_KEY")
    default_key = None
    home_host = GOOGLE_HOST
    forced_tool_choice = "any"

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        chat = _langchain_class("langchain_google_genai", "ChatGoogleGenerativeAI", self.name)
        if extra.get("service_tier"):  # --service-tier flex: a subclass that sends it (agents.gemini_tier)
            chat = _langchain_class("agents.gemini_tier", "GeminiWithTier", self.name)
        # base_url: google-genai's HttpOptions.base_url (requests go to <base>/v1beta/models/<name>:generateContent)
        kw: dict[str, Any] = {"base_url": client.base_url} if client.base_url else {}
        if settings.thinking_budget is not None:
            kw["thinking_budget"] = settings.thinking_budget
        if settings.thinking_level is not None:
            kw["thinking_level"] = settings.thinking_level
        return chat(model=name, max_output_tokens=settings.max_tokens, timeout=settings.timeout_s, **kw,
                    temperature=settings.temperature, max_retries=client.max_retries, **_keyed(client), **extra)

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        return _api_identity(self.name, name, served, "https://generativelanguage.googleapis.com",
                             "langchain-google-genai")


@register
class Local(OpenAICompatible):
    """The embedded llama.cpp server (``agents.local_model``), started for the run on a loopback port."""

    name = "local"
    description = "embedded llama.cpp model (no key, no network)"
    default_connections = default_slots()  # one sample per slot of the embedded server
    base_url_hint = "the embedded server is started by evals.compare"
    requires_base_url = False
    default_key = "local"
    base_url_refusal = ("local/ models run on the embedded server geogap starts, so --base-url would be ignored; "
                        "for a running llama.cpp server use openai-compatible/NAME --base-url URL")

    @contextmanager
    def serve(self, name: str, base_url: str | None, *, log_path: Path, tool_call_parser: str | None,
              say: Say, serve_args: Sequence[str] = (), slots: int | None = None,
              threads: int | None = None) -> Iterator[Served]:
        from agents.local_model import (
            LocalModelServer,
            LocalModelUnavailable,
            ModelIntegrityError,
            ensure_model_file,
            thread_policy,
        )

        slots = slots or default_slots()
        with ThreadPoolExecutor(1) as pool:
            # the model file (1 GB, assembled and hashed on a first run) is made while the load is measured
            model_file = pool.submit(ensure_model_file, name)
            plan = thread_policy(threads=threads)
            say(f"starting the embedded model server ({slots} slots, {plan.threads} "
                f"thread{'s' * (plan.threads != 1)}: {plan.why}) …")
        with ExitStack() as stack:
            try:
                model_file.result()
                server = stack.enter_context(LocalModelServer(name, slots=slots, threads=plan.threads,
                                                              log_path=log_path, spin=plan.spin))
            except (LocalModelUnavailable, ModelIntegrityError, ValueError) as exc:
                raise ServerUnavailable(str(exc)) from None
            yield Served(server.base_url, watch=server.watch)

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        """The GGUF's sha256 (verified when the server starts), the runtime (xllamacpp and its version) and the
        chat handler's hash; not the endpoint (its port changes every run)."""
        from agents.local_model import MODELS, RUNTIME_PACKAGE

        handler = Path(__file__).with_name("llama_server.py")
        info = MODELS.get(name)
        version = versions.get(RUNTIME_PACKAGE)
        return {"handler": hashlib.sha256(handler.read_bytes()).hexdigest()[:16] if handler.exists() else None,
                "gguf_sha256": info.sha256 if info else None,
                "runtime": f"{RUNTIME_PACKAGE} {version}" if version else None}, None


@register
class Vllm(OpenAICompatible):
    """``vllm serve`` started on this machine's GPU (``agents.vllm_server``), or a running one by base URL."""

    name = "vllm"
    description = "vLLM: starts vllm serve with tool calling on a GPU machine, or --base-url of a running server"
    requires_base_url = False
    llama_like = False

    @contextmanager
    def serve(self, name: str, base_url: str | None, *, log_path: Path, tool_call_parser: str | None,
              say: Say, serve_args: Sequence[str] = (), slots: int | None = None,
              threads: int | None = None) -> Iterator[Served]:
        from agents.vllm_server import VllmUnavailable, plan_vllm

        if base_url and serve_args:
            raise ValueError("--vllm-arg applies to a vllm serve geogap starts, not to --base-url")
        with ExitStack() as stack:
            try:
                vllm = plan_vllm(name, base_url, tool_call_parser=tool_call_parser, extra_args=serve_args)
                if vllm is not None:
                    vllm.log_path = log_path
                    say(f"starting {vllm.launch_line()} …")
                    url = stack.enter_context(vllm).base_url
            except (VllmUnavailable, TimeoutError) as exc:
                raise ServerUnavailable(str(exc)) from None
            if vllm is None:
                yield Served(base_url)
            else:
                yield Served(url, watch=vllm.watch, launch=vllm.launch_line(with_model=False))


@register
class Scripted(Provider):
    """``scripted/<module>:<function>``: the function ``(messages, tool_names) -> reply`` (an ``AIMessage`` or a
    string) answers every call (:class:`agents.scripted.ScriptedChatModel`); for tests and dry runs."""

    name = "scripted"
    description = "a Python policy module:function(messages, tool_names) -> reply (tests, dry runs; no network)"

    @staticmethod
    def policy(name: str) -> Callable[..., Any]:
        module, _, attr = name.partition(":")
        try:
            found = getattr(importlib.import_module(module), attr) if attr else None
        except (ImportError, AttributeError) as exc:
            raise ValueError(f"scripted/{name}: cannot load the policy ({type(exc).__name__}: {exc})") from None
        if not callable(found):
            raise ValueError(f"scripted/{name}: name a function as scripted/<module>:<function>")
        return found

    def check(self, name: str, base_url: str | None) -> None:
        self.policy(name)

    def chat_model(self, name: str, settings: GenerationSettings, client: ClientOptions,
                   **extra: Any) -> BaseChatModel:
        from agents.scripted import ScriptedChatModel

        return ScriptedChatModel(script=self.policy(name))

    def identity(self, name: str, served: Served, *, api_key_env: str | None,
                 versions: dict[str, str]) -> tuple[dict[str, Any] | None, str | None]:
        """The policy's code: its module's source file and the function's compiled code, so an edited policy
        is never answered from the cache; a policy without a source file gets no cache."""
        policy = self.policy(name)
        module = importlib.import_module(name.partition(":")[0])
        source = getattr(module, "__file__", None)
        code = getattr(policy, "__code__", None)
        if not source or not Path(source).is_file() or code is None:
            return None, f"scripted/{name} has no source file to name it; the model-call cache is off for this run"
        digest = hashlib.sha256(Path(source).read_bytes())
        digest.update(marshal.dumps(code))
        return {"policy": name, "code": digest.hexdigest()[:16]}, None
