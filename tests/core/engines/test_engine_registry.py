"""Engines as descriptors (#27): a toy engine added as one module is recognised by discovery,
read for its settings and its /metrics, named by the diagnosis's words in both languages, and
its names reach what-if and the sweep's requests; removed, nothing knows it."""

from __future__ import annotations

import dataclasses

import httpx
import pytest

from desktop_app.core import engines
from desktop_app.core.endpoint.discovery import choose_model, discover
from desktop_app.core.endpoint.server_settings import describe_key
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.fit import parse_changes
from desktop_app.core.parsing import InputError
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.diagnosis import diagnose
from desktop_app.core.throughput.servermetrics import parse_metrics
from desktop_app.core.throughput.sweep import request_body
from desktop_app.report.diagnosis_words import finding_text, suggestion_text
from tests.core.throughput.test_diagnosis import by_code, sweep, vllm_info
from tests.toy_engine import toy_engine

METRICS = ("# HELP toy:active_slots Requests being decoded.\n"
           "# TYPE toy:active_slots gauge\n"
           'toy:active_slots{slot_group="a"} 1\n'
           'toy:active_slots{slot_group="b"} 1\n'
           "toy:queued 3\n"
           "toy:cache_fill 0.42\n")
INFO = {"server": "toyserve", "version": "0.3.1", "slots": 2, "ctx": 4096, "colour": "blue"}


def toy_server(info: dict = INFO) -> httpx.AsyncClient:
    routes = {"/v1/models": {"object": "list", "data": [{"id": "toy-1", "owned_by": "me"}]},
              "/toy/info": info}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/metrics":
            return httpx.Response(200, text=METRICS)
        if request.url.path in routes:
            return httpx.Response(200, json=routes[request.url.path])
        return httpx.Response(404, json={"detail": "not found"})

    return httpx.AsyncClient(transport=httpx.MockTransport(handler))


CONFIG = EndpointConfig("http://toy:9000", model="toy-1")


@pytest.mark.asyncio
async def test_a_toy_engine_module_is_recognised_and_read(tmp_path):
    with toy_engine(tmp_path):
        async with toy_server() as client:
            info = await discover(CONFIG, client)
        assert (info.engine, info.engine_version) == ("toyserve", "0.3.1")
        assert info.has_metrics and info.accepts_ignore_eos and not info.simulated
        assert info.tokenizer is None  # it has no /tokenize shape: prompts are calibrated
        settings = info.server_settings
        assert settings.values == {"engine_version": "0.3.1", "max_num_seqs": 2,
                                   "max_model_len": 4096}
        assert settings.engine_names["max_num_seqs"] == "slots"
        assert describe_key("max_num_seqs", "toyserve") == "max_num_seqs (ToyServe: slots)"
        # It refuses a model it does not serve, so a typo is caught before the run.
        with pytest.raises(InputError, match="not served"):
            choose_model(dataclasses.replace(CONFIG, model="toy-2"), info)

        sample = parse_metrics(METRICS, 1.0)
        assert (sample.running, sample.waiting, sample.kv_cache_usage) == (2.0, 3.0, 0.42)
        assert sample.raw["toy:queued"] == 3.0

        assert parse_changes(["slots=4", "--step-tokens=1024"]) == {
            "max_num_seqs": 4, "max_num_batched_tokens": 1024}
        config = SweepConfig(endpoint=CONFIG, input_tokens=(64,), concurrency=(1,),
                             unique_prompts=True)
        body = request_body(config, info, _Prompt(), 8)
        assert body["toy_cache"] is False and body["ignore_eos"] is True

    # Removed, the same server is an unknown OpenAI-compatible one and its names mean nothing.
    async with toy_server() as client:
        info = await discover(CONFIG, client)
    assert info.engine == "unknown" and info.server_settings.values == {}
    assert parse_metrics(METRICS, 1.0).running is None
    with pytest.raises(ValueError, match="slots"):
        parse_changes(["slots=4"])


def _queued_cells(raw_names: bool):
    cells = sweep("seed-reference", (512,), (1, 4), metrics_cap=2, kv=0.5)
    if raw_names:  # the series' own names, as a scrape of the toy server would hold them
        cells = [dataclasses.replace(c, samples=tuple(
            dataclasses.replace(s, raw={"toy:active_slots": s.running, "toy:queued": s.waiting})
            for s in c.samples)) for c in cells]
    return cells


def test_the_diagnosis_names_the_toy_engines_gauge_and_knob_in_both_languages(tmp_path):
    with toy_engine(tmp_path):
        toy = dataclasses.replace(vllm_info(), engine="toyserve", simulated=False)
        for info, raw in ((toy, False), (None, True)):  # from discovery, or from its series
            cap = by_code(diagnose(_queued_cells(raw), info), "concurrency_cap")
            assert cap.params["metric"] == "toy:active_slots" and cap.params["knob"] == "--slots"
            for lang in ("en", "zh"):
                words = finding_text(cap, lang) + suggestion_text(cap, lang)
                assert "toy:active_slots" in words and "--slots" in words
                assert "max-num-seqs" not in words and "vllm:" not in words
    # Without the module, the same gauges are nobody's: the words describe the limit in general.
    cap = by_code(diagnose(_queued_cells(True), None), "concurrency_cap")
    assert cap.params.get("knob") is None and "--slots" not in suggestion_text(cap, "en")


def test_every_built_in_engine_is_one_registered_module():
    names = engines.engine_names()
    assert set(names) == {"tgi", "ollama", "sglang", "llamacpp", "llamacpp-python", "vllm",
                          "unknown"}
    assert names[-1] == "unknown"  # the generic one is tried last
    for engine in engines.all_engines():
        assert set(engine.knobs) <= set(engines.KNOB_ROLES)
        assert not engine.series or engine.metric_prefix, engine.name
        assert all(n.startswith(engine.metric_prefix) for ns in engine.series.values() for n in ns)
    with pytest.raises(ValueError, match="code"):
        engines.register(engines.Engine("Toy Serve", "x"))
    # A run stores the engine it measured, and whether the simulator stood in for it.
    assert engines.run_label("sglang", True) == "simulated sglang"
    assert engines.label_parts("simulated sglang") == ("sglang", True)
    assert engines.label_parts("llamacpp-python") == ("llamacpp-python", False)
    assert engines.label_parts("") == ("unknown", False)


class _Prompt:
    def request_fields(self) -> dict:
        return {"messages": [{"role": "user", "content": "hi"}]}
