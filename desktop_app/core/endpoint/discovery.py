"""Discovery: what is behind a base URL (models, engine, tokenizer, /metrics), before a run.

`discover` makes one required call (`GET /v1/models`, timed) and a handful of optional probes
whose absence is normal: `/version`, `/metrics`, `/health`, `/props` (llama.cpp),
`/get_server_info` (SGLang), `/api/version` (Ollama), `/info` (TGI), then the tokenizer
endpoints. Only a failure that makes a run impossible raises `EndpointError` (bad URL,
unreachable, 401/403, no model list); everything else becomes a note in words.

`count_prompt_tokens` asks the server's own tokenizer how long a prompt is.
"""

from __future__ import annotations

import dataclasses

import asyncio
import json
import re
import time
from dataclasses import dataclass

import httpx

from desktop_app.core import engines
from desktop_app.core.endpoint.client import EndpointError, error_message, make_client, status_text
from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.messages import NOTE_MESSAGES
from desktop_app.core.endpoint.limits import JSONTooDeep, loads_limited, with_limit
from desktop_app.core.endpoint.server_settings import ServerSettings, read_server_settings
from desktop_app.core.endpoint.types import (DiscoveryNote, EndpointConfig, EndpointInfo,
                                             TokenizerKind)
from desktop_app.core.endpoint.urls import validate_base_url
from desktop_app.core.parsing import InputError
from desktop_app.core.redact import redact_url

__all__ = ["EndpointError", "count_chat_tokens", "count_prompt_tokens", "discover",
           "validate_base_url"]

_PROBE_TIMEOUT_S = 10.0  # each optional probe; they run concurrently
_SETTINGS_TIMEOUT_S = 12.0  # all of read_server_settings (its probes are bounded by 5 s each)
_MODELS_TIMEOUT_S = 30.0  # GET /v1/models: a user is waiting, and it is a cheap call
# All of discovery, whatever each step's own bound: a server slow at every probe in turn (a
# drip on each) still gives the user an answer within a minute.
DISCOVERY_DEADLINE_S = 60.0
_PROBE_TEXT = "Hello world"


def note(code: str, **params) -> DiscoveryNote:
    return DiscoveryNote(code, tuple(params.items()), NOTE_MESSAGES[code].format(**params))


@dataclass(frozen=True)
class _Answer:
    status: int
    json: object
    text: str


async def discover(config: EndpointConfig, client: httpx.AsyncClient | None = None
                   ) -> EndpointInfo:
    """Learn what serves `config.base_url`; raises EndpointError when it cannot be used.

    `latency_s` is the round trip of `GET /v1/models` in seconds. Without `client`, a small
    client of its own is made and closed. Takes about one round trip plus the slowest probe
    (/v1/models bounded by 30 s, each optional probe by 10 s). Cancelling it cancels the
    probes in flight.
    """
    try:
        validate_base_url(config.base_url)
    except ValueError as exc:
        if isinstance(exc, InputError) and exc.code:
            # the InputError's own code: its words name the field as the form does
            params = {("typed_url" if k == "url" else k): v for k, v in exc.params.items()}
            raise EndpointError(code="url:" + exc.code, url=config.base_url, field=exc.field,
                                **params) from None
        raise EndpointError(str(exc), url=config.base_url) from None
    try:
        async with asyncio.timeout(DISCOVERY_DEADLINE_S):
            if client is not None:
                return await _discover(config, client)
            async with make_client(config, 1) as own:
                return await _discover(config, own)
    except TimeoutError:
        url = redact_url(config.base_url)
        raise EndpointError(code="discovery_deadline", url=url,
                            seconds=DISCOVERY_DEADLINE_S) from None


async def _discover(config: EndpointConfig, client: httpx.AsyncClient) -> EndpointInfo:
    url = config.v1_url + "/models"
    t0 = time.perf_counter()
    response = await _get_models(client, config, url)
    latency_s = time.perf_counter() - t0
    try:
        data = loads_limited(response.content)
    except JSONTooDeep as exc:
        raise EndpointError(code="models_too_deep", url=url, detail=str(exc),
                            status_code=response.status_code) from None
    except ValueError:
        data = None
    listed = data.get("data") if isinstance(data, dict) else None
    if not isinstance(listed, list):
        raise EndpointError(code="no_model_list", url=url, start=repr(response.text[:120]),
                            status_code=response.status_code)
    listed_ids = [str(m["id"]) for m in listed if isinstance(m, dict) and m.get("id")]
    models = tuple(m for m in listed_ids if len(m) <= limits.MAX_MODEL_ID_CHARS)
    owners = {str(m.get("owned_by", "")).lower() for m in listed if isinstance(m, dict)}
    server = response.headers.get("server", "")

    paths = engines.probe_paths()
    answers = await asyncio.gather(*(_get(client, config.root_url + p) for p in paths))
    probe = dict(zip(paths, answers))
    metrics = probe["/metrics"]
    prefixes = _series_prefixes(metrics.text) if metrics and metrics.status == 200 else set()
    seen = engines.Probe(answers={p: _dict(a) for p, a in probe.items() if p != "/metrics"},
                         prefixes=frozenset(prefixes), owners=frozenset(owners), server=server)
    engine, engine_version, simulated = engines.identify(seen)

    model = config.model or (models[0] if models else "")
    tokenizer = await _probe_tokenizer(client, config.root_url, engine, model)
    if engine == engines.UNKNOWN and tokenizer is not None:
        engine, engine_version = engines.identify_by_tokenizer(seen, tokenizer)

    descriptor = engines.get_engine(engine)
    has_metrics = (bool(descriptor.metric_prefix) and descriptor.metric_prefix in prefixes) or (
        engine == engines.UNKNOWN and bool(prefixes))
    notes = _notes(engine, tokenizer, has_metrics, metrics, prefixes, probe, server, config,
                   models)
    # The simulator always speaks vLLM's /version and /metrics, whichever engine it names.
    settings = await _server_settings(client, config.root_url, "vllm" if simulated else engine)
    return EndpointInfo(
        models=models, engine=engine, engine_version=_str_or_none(engine_version),
        tokenizer=tokenizer, has_metrics=has_metrics, simulated=simulated,
        accepts_ignore_eos=simulated or descriptor.accepts_ignore_eos, latency_s=latency_s,
        notes=tuple(notes), server_settings=settings,
        long_model_ids=len(listed_ids) - len(models),
    )


async def _server_settings(client: httpx.AsyncClient, root: str, engine: str
                           ) -> ServerSettings | None:
    """The server's own settings, or None: reading them must never fail discovery."""
    try:
        return await asyncio.wait_for(read_server_settings(client, root, engine),
                                      _SETTINGS_TIMEOUT_S)
    except Exception:  # noqa: BLE001 (CancelledError is not an Exception: it propagates)
        return None


def _series_prefixes(text: str) -> set[str]:
    """The engines' series prefixes (`Engine.metric_prefix`) that start a line of `text`, a
    metric's HELP or TYPE line included."""
    known = engines.metric_prefixes()
    if not known:
        return set()
    pattern = re.compile(r"^(?:# (?:HELP|TYPE) )?(" + "|".join(map(re.escape, known)) + ")",
                         re.MULTILINE)
    return set(pattern.findall(text))


def _notes(engine: str, tokenizer: TokenizerKind | None, has_metrics: bool,
           metrics: _Answer | None, prefixes: set[str], probe: dict, server: str,
           config: EndpointConfig, models: tuple[str, ...]) -> list[DiscoveryNote]:
    notes = []
    if engine == engines.UNKNOWN:
        paths = ", ".join(p for p in engines.probe_paths() if p != "/health")
        notes.append(note("engine_unknown_server", paths=paths, server=repr(server)) if server
                     else note("engine_unknown", paths=paths))
    if config.model and models and config.model not in models:
        notes.append(note("model_not_listed", model=repr(config.model),
                          models=repr(list(models))))
    if not models:
        notes.append(note("no_models"))
    if tokenizer is None:
        notes.append(note("no_tokenizer"))
    descriptor = engines.get_engine(engine)
    if not has_metrics:
        if metrics is not None and metrics.status == 200:
            notes.append(note("metrics_unread_seen", seen=", ".join(sorted(prefixes))) if prefixes
                         else note("metrics_unread", known=", ".join(engines.metric_prefixes())))
        elif descriptor.metrics_switch:
            notes.append(note("no_metrics_switch", switch=descriptor.metrics_switch))
        else:
            notes.append(note("no_metrics"))
    health = probe["/health"]
    if health is not None and health.status >= 500:
        notes.append(note("health_failing", status=status_text(health.status)))
    notes += [note(code) for code in descriptor.notes]
    if descriptor.unique_prompt_fields:
        fields = ", ".join(f"{k}: {json.dumps(v)}" for k, v in descriptor.unique_prompt_fields.items())
        notes.append(note("prompt_cache_off", engine=descriptor.label, fields=fields))
    return notes


async def _get_models(client: httpx.AsyncClient, config: EndpointConfig, url: str
                      ) -> httpx.Response:
    """GET /v1/models, turning every way it can fail into a message for the user."""
    wait_s = min(config.first_byte_timeout_s, _MODELS_TIMEOUT_S)
    try:
        response = await client.get(url, timeout=httpx.Timeout(
            wait_s, connect=config.connect_timeout_s))
    except httpx.ConnectTimeout:
        raise EndpointError(code="connect_timeout", url=url,
                            seconds=config.connect_timeout_s) from None
    except limits.ExchangeDeadline as exc:  # a drip: it names its phase
        raise EndpointError(code="get_drip", url=url, detail=str(exc)) from None
    except httpx.TimeoutException:
        raise EndpointError(code="models_timeout", url=url, seconds=wait_s) from None
    except (httpx.ConnectError, httpx.UnsupportedProtocol) as exc:
        raise EndpointError(code="cannot_connect", url=url, detail=str(exc)) from None
    except httpx.HTTPError as exc:
        raise EndpointError(code="get_failed", url=url,
                            detail=f"{type(exc).__name__}: {exc}") from None
    status = response.status_code
    if status in (401, 403):
        raise EndpointError(code="models_auth", url=url, status=status_text(status),
                            status_code=status)
    if status == 404:
        raise EndpointError(code="no_api", url=url, status_code=status)
    if not response.is_success:
        raise EndpointError(code="models_status", url=url, status=status_text(status),
                            detail=error_message(response), status_code=status)
    return response


async def _get(client: httpx.AsyncClient, url: str) -> _Answer | None:
    """An optional GET: its answer, or None when the server could not be asked. A /metrics
    body is read to `MAX_METRICS_BYTES` only (its start says which engine it is)."""
    if url.endswith("/metrics"):
        return await _get_start(client, url, limits.MAX_METRICS_BYTES)
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):  # the whole probe, a drip included
            response = await client.get(url, timeout=_PROBE_TIMEOUT_S)
    except (httpx.HTTPError, TimeoutError):  # ResponseTooLarge included
        return None
    return _Answer(response.status_code, _json(response), response.text)


async def _get_start(client: httpx.AsyncClient, url: str, limit: int) -> _Answer | None:
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):
            request = with_limit(client.build_request("GET", url, timeout=_PROBE_TIMEOUT_S),
                                 limit, "metrics")
            response = await client.send(request, stream=True)
            try:
                body = await limits.read_some(response, limit)
            finally:
                await response.aclose()
    except (httpx.HTTPError, TimeoutError):  # ResponseLimitError included
        return None
    return _Answer(response.status_code, None, body.decode("utf-8", "replace"))


async def _post(client: httpx.AsyncClient, url: str, body: dict) -> dict:
    """An optional POST's JSON object on a 2xx answer, else {}."""
    try:
        async with asyncio.timeout(_PROBE_TIMEOUT_S):  # the whole probe, a drip included
            response = await client.post(url, json=body, timeout=_PROBE_TIMEOUT_S)
    except (httpx.HTTPError, TimeoutError):
        return {}
    data = _json(response) if response.is_success else None
    return data if isinstance(data, dict) else {}


def _json(response: httpx.Response) -> object:
    try:
        return loads_limited(response.content)  # JSONTooDeep is a ValueError
    except ValueError:
        return None


def _dict(answer: _Answer | None) -> dict:
    if answer is None or not 200 <= answer.status < 300 or not isinstance(answer.json, dict):
        return {}
    return answer.json


def _str_or_none(value: object) -> str | None:
    return None if value is None else str(value)


async def _probe_tokenizer(client: httpx.AsyncClient, root: str, engine: str, model: str
                           ) -> TokenizerKind | None:
    """Which /tokenize shape answers, trying the likeliest first; None if none does."""
    shapes = engines.get_engine(engine).tokenizers
    order = engines.TOKENIZER_KINDS if shapes is None else shapes  # (): it has none we use
    for kind in order:
        if await _tokenize(client, root, kind, model, _PROBE_TEXT, None) is not None:
            return kind
    return None


async def _tokenize(client: httpx.AsyncClient, root: str, kind: TokenizerKind, model: str,
                    prompt: str | None, messages: list | None) -> int | None:
    if kind == "vllm":
        body: dict = {"model": model} if model else {}
        if messages is not None:
            body.update(messages=messages, add_generation_prompt=True)
        else:
            body["prompt"] = prompt
        count = (await _post(client, root + "/tokenize", body)).get("count")
        return count if isinstance(count, int) else None
    if kind == "llamacpp":
        # add_special: count the BOS the completion endpoints add, so the count is usage's.
        data = await _post(client, root + "/tokenize", {"content": prompt, "add_special": True})
    else:
        data = await _post(client, root + "/extras/tokenize", {"input": prompt})
    tokens = data.get("tokens")
    return len(tokens) if isinstance(tokens, list) and tokens else None


async def count_prompt_tokens(client: httpx.AsyncClient, config: EndpointConfig,
                              info: EndpointInfo, *, prompt: str | None = None,
                              messages: list | None = None) -> int | None:
    """The server's count of prompt tokens, or None when it cannot tell.

    What is counted, by `info.tokenizer`:

    * "vllm": with `messages`, the chat template applied with the generation prompt (equals
      `usage.prompt_tokens` of the same chat request); else `prompt` with the special tokens a
      completion request adds (equals `usage.prompt_tokens` of a /v1/completions request).
    * "llamacpp": `prompt` only, with BOS (`add_special`), as /v1/completions counts it;
      llama.cpp's /tokenize applies no chat template, so `messages` alone gives None.
    * "llamacpp-python": `prompt` only, as its `/extras/tokenize` counts it (with BOS).

    None also when there is no tokenizer or the call fails (callers then calibrate with a
    1-token completion). Cancellation propagates.
    """
    if info.tokenizer is None or (prompt is None and messages is None):
        return None
    if info.tokenizer != "vllm":
        messages = None
        if prompt is None:
            return None
    model = config.model or (info.models[0] if info.models else "")
    return await _tokenize(client, config.root_url, info.tokenizer, model, prompt, messages)


async def count_chat_tokens(client: httpx.AsyncClient, config: EndpointConfig,
                            info: EndpointInfo, messages: list,
                            tools: list | None = None) -> int | None:
    """The server's count of a chat request's prompt tokens (its chat template applied, with
    the generation prompt), or None when it cannot tell: what `usage.prompt_tokens` of the same
    request would have said, for a reply that was cut before the server sent its usage.

    * "vllm": `/tokenize` with `messages` (and `tools`).
    * "llamacpp": `/apply-template` (the server's own template, as its chat endpoint applies
      it), then `/tokenize` of that text with BOS; equal to usage on llama.cpp's server with
      SmolLM2's template, tools or not.
    * otherwise None. Each call is bounded like a probe; failures are None.
    """
    if info.tokenizer == "vllm":
        body: dict = {"messages": messages, "add_generation_prompt": True}
        if config.model:
            body["model"] = config.model
        if tools:
            body["tools"] = tools
        count = (await _post(client, config.root_url + "/tokenize", body)).get("count")
        return count if isinstance(count, int) and count > 0 else None
    if info.tokenizer == "llamacpp":
        body = {"messages": messages}
        if tools:
            body["tools"] = tools
        prompt = (await _post(client, config.root_url + "/apply-template", body)).get("prompt")
        if not isinstance(prompt, str) or not prompt:
            return None
        return await _tokenize(client, config.root_url, "llamacpp", "", prompt, None)
    return None


def choose_model(config: EndpointConfig, info: EndpointInfo, *, field: str = "model") -> EndpointConfig:
    """`config` with its model settled before anything runs: its own, else the endpoint's first
    listed model. Raises InputError (naming `field`) when there is none, or when the model is
    not served by an engine that would refuse it."""
    model = config.model
    if not model:
        if not info.models:
            raise InputError(field, code="no_models_listed")
        return dataclasses.replace(config, model=info.models[0])
    if info.models and model not in info.models and engines.get_engine(info.engine).refuses_unknown_model:
        raise InputError(field, code="model_not_served", item=repr(model)[:200],
                         url=redact_url(config.v1_url),
                         models=", ".join(info.models[:20]) + (" ..." if len(info.models) > 20
                                                               else ""))
    return config
