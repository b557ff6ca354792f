"""The plain records the endpoint client, the sweep and the GUI exchange.

Frozen dataclasses, no behaviour: the modules beside this one produce them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from desktop_app.core.engines import TokenizerKind  # which /tokenize shape, if any

if TYPE_CHECKING:  # the settings reader pulls in httpx, which the app's start-up defers
    from desktop_app.core.endpoint.server_settings import ServerSettings

Api = Literal["chat", "completions"]
# An engine's name: a code core/engines registers ("vllm", "llamacpp", ...; "unknown").
Engine = str

# Classes of failed requests, as counted per cell and shown to users.
ERROR_CLASSES = (
    "connect",  # could not connect (refused, DNS, TLS handshake)
    "timeout",  # connect, first-byte or total timeout
    "http_status",  # a non-2xx answer; the status code is recorded beside it
    "connection_closed",  # the server closed the connection before one byte of its answer
    "stream_cut",  # the stream ended without a finish_reason / [DONE] (reset, server cut it)
    "malformed_stream",  # an SSE line or JSON the client could not parse
    "no_usage",  # asked for usage and none came: token counts are the client's own
    "no_content",  # the stream completed but no chunk carried content (choices null/missing)
)


@dataclass(frozen=True)
class EndpointConfig:
    """Where and how to reach an endpoint. Times in seconds.

    `api_key` lives only in memory: it is never written to the store, logs or exports
    (`desktop_app.core.redact` strips it from anything stored). `base_url` is the server root or
    its `/v1` (both are accepted; `root_url` and `v1_url` normalise them).
    """

    base_url: str
    model: str = ""
    api: Api = "chat"
    api_key: str | None = field(default=None, repr=False)
    verify_tls: bool = True
    connect_timeout_s: float = 10.0
    first_byte_timeout_s: float = 600.0  # a 32k prompt behind a queue can take minutes
    total_timeout_s: float = 3600.0  # one request, start to end (`--request-timeout`)

    @property
    def root_url(self) -> str:
        """The server root without a trailing slash or `/v1` (where /metrics and /tokenize live)."""
        url = self.base_url.rstrip("/")
        return url[: -len("/v1")] if url.endswith("/v1") else url

    @property
    def v1_url(self) -> str:
        """The OpenAI API root, `<root>/v1`."""
        return f"{self.root_url}/v1"


@dataclass(frozen=True)
class DiscoveryNote:
    """What discovery could not tell or wants said: a code (`discovery.NOTE_MESSAGES`), its
    params, and its English (`text`, also `str(note)`); `report.endpoint_words` says it in the
    reader's language."""

    code: str
    params: tuple[tuple[str, object], ...] = ()
    text: str = ""

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class EndpointInfo:
    """What discovery learned about an endpoint."""

    models: tuple[str, ...]
    engine: Engine
    engine_version: str | None
    tokenizer: TokenizerKind | None  # None: no tokenizer endpoint, prompts are calibrated
    has_metrics: bool
    simulated: bool  # Throughline's own simulator (its /version says so)
    accepts_ignore_eos: bool  # vLLM, SGLang, llama.cpp server, the simulator
    latency_s: float  # round trip of GET /v1/models
    notes: tuple[DiscoveryNote, ...] = ()  # what discovery could not tell
    # What the server reports of its own settings (server_settings.read_server_settings); None
    # when discovery could not read them at all.
    server_settings: ServerSettings | None = None
    # Model ids /v1/models listed that are longer than limits.MAX_MODEL_ID_CHARS: not in
    # `models`, never offered (a megabyte id would be every line and stored row it is in).
    long_model_ids: int = 0


@dataclass(frozen=True)
class StreamResult:
    """One streamed request as the client saw it. Times are `time.perf_counter_ns()` stamps
    taken as the bytes arrived (nanoseconds, one monotonic clock shared with the simulator's
    trace on Linux).

    `first_token_ns` is the first chunk carrying any token: non-empty content, a tool-call delta,
    or reasoning (`delta.reasoning_content`, vLLM's reasoning parsers; `delta.reasoning`); role-only
    and empty chunks do not count. `first_answer_ns` is the first chunk carrying the answer
    (non-empty content or a tool-call delta, reasoning excluded): the two differ only for a
    reasoning model. `reasoning_chunks` counts the chunks that carried reasoning and no answer.
    `chunk_times_ns` holds every token-bearing chunk (reasoning included).
    `completion_tokens` is `usage.completion_tokens` when the server sent usage
    (`tokens_source == "usage"`), else the client's own count of content chunks
    (`tokens_source == "client"`, and `error_class` is "no_usage" when usage was asked for).
    """

    sent_ns: int  # httpcore started writing the request (after any wait for a connection)
    queued_ns: int | None = None  # handed to httpx; sent_ns - queued_ns is the client's own wait
    first_byte_ns: int | None = None  # response headers received
    first_token_ns: int | None = None  # any token, reasoning included
    last_token_ns: int | None = None
    chunk_times_ns: tuple[int, ...] = ()
    response_id: str | None = None
    status_code: int | None = None
    prompt_tokens: int | None = None  # the server's usage.prompt_tokens
    completion_tokens: int = 0
    tokens_source: Literal["usage", "client"] = "client"
    cached_tokens: int | None = None  # usage.prompt_tokens_details.cached_tokens, if sent
    finish_reason: str | None = None
    text: str = ""
    # The reply's tool calls in the non-streamed shape ({"id", "type", "function": {"name",
    # "arguments"}}), kept only when asked (`stream_request(keep_calls=True)`).
    tool_calls: tuple[dict, ...] = ()
    # The usage object as the server sent it, also kept only with keep_calls (the agent quotes
    # an impossible count as it came).
    raw_usage: dict | None = None
    # The whole JSON completion a server sent instead of a stream (accept_json), as it came.
    whole: dict | None = None
    error_class: str | None = None
    error_message: str | None = None
    retry_after_s: float | None = None  # from a 429/503's Retry-After header
    # Plausibility codes (client.PLAUSIBILITY_FLAGS): negative_usage and absurd_usage (the
    # server's count was impossible, the client's stands), usage_mismatch (usage and the
    # streamed chunks disagree beyond 2x + 8), no_content.
    flags: tuple[str, ...] = ()
    first_answer_ns: int | None = None  # first answer token (content or tool call), no reasoning
    reasoning_chunks: int = 0  # chunks that carried reasoning only


@dataclass(frozen=True)
class MetricSample:
    """One scrape of the server's /metrics, mapped to engine-independent names.

    `t_s` is seconds since the run started (the sweep's clock). None means the engine does not
    expose that figure. `kv_cache_usage` is a fraction 0..1; `preemptions` is the counter's
    running total.
    """

    t_s: float
    running: float | None = None
    waiting: float | None = None
    kv_cache_usage: float | None = None
    preemptions: float | None = None
    raw: dict[str, float] = field(default_factory=dict)  # the mapped source series, by name
