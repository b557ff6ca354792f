"""The Throughput form's Workload field (#29): a file replayed instead of the prompt lengths,
read off the GUI thread, previewed, and turned into the sweep's config."""

import json

from PySide6.QtCore import QSettings

from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.gui.context import ActiveEndpoint, AppContext
from desktop_app.gui.controllers.throughput import build_config
from desktop_app.gui.pages.throughput import ThroughputPage
from desktop_app.gui.settings import Settings


def _page(qtbot, tmp_path) -> ThroughputPage:
    context = AppContext(tmp_path / "r.db")
    info = EndpointInfo(models=("m",), engine="vllm", engine_version=None, tokenizer="vllm",
                        has_metrics=False, simulated=False, accepts_ignore_eos=True,
                        latency_s=0.01)
    context.set_endpoint(ActiveEndpoint(EndpointConfig("http://127.0.0.1:9", model="m"), info,
                                        "typed"))
    settings = Settings(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    page = ThroughputPage(context, settings)
    qtbot.addWidget(page)
    page.show()
    return page


def test_a_workload_file_is_previewed_and_replaces_the_prompt_lengths(qtbot, qt_loop, tmp_path):
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(json.dumps({"timestamp": 100 * i, "input_length": 600 + i,
                                           "output_length": 8, "hash_ids": [3, 50 + i]})
                               for i in range(5)) + "\nnot json\n", encoding="utf-8")
    page = _page(qtbot, tmp_path)
    page.workload.setText(str(trace))
    qtbot.waitUntil(lambda: page.workload_preview.isVisible(), timeout=5000)
    preview = page.workload_preview.text()
    assert "mooncake:trace.jsonl: 5 records" in preview, preview
    assert "600-604 tokens, mean 602" in preview and "spans 0.4 s" in preview, preview
    assert "40 % of prompt blocks repeat" in preview, preview  # block 3: 4 of 10 repeat
    assert "1 left out (the first: line 6: not JSON)" in preview, preview
    assert not page.input_tokens.isEnabled()
    assert page.start_button.isEnabled(), page.form_error.text()
    page.on_schedule.setChecked(True)
    page.speedup.setText("4")
    config = build_config(page.form(), page.context.endpoint)
    (cell,) = config.cells()
    assert (cell.workload, cell.speedup, cell.requests) == ("mooncake:trace.jsonl", 4.0, 5)
    assert config.workload.path == str(trace)
    page.speedup.setText("0")
    assert page._errors["speed-up"].text(), "a speed-up of 0 is refused"
    assert not page.start_button.isEnabled()


def test_a_file_without_timestamps_cannot_be_sent_on_its_schedule(qtbot, qt_loop, tmp_path):
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"prompt": "hello there, how are you", "max_tokens": 5})
                       + "\n", encoding="utf-8")
    page = _page(qtbot, tmp_path)
    page.workload.setText(str(prompts))
    qtbot.waitUntil(lambda: page.workload_preview.isVisible(), timeout=5000)
    assert page.start_button.isEnabled()
    page.on_schedule.setChecked(True)
    said = page._errors["workload"].text()
    assert "its records do not all have a timestamp" in said, said
    assert not page.start_button.isEnabled()
    page.workload.setText(str(tmp_path / "missing.json"))
    qtbot.waitUntil(lambda: "no such file" in page._errors["workload"].text(), timeout=5000)
    page.workload.setText("")
    qtbot.waitUntil(lambda: page.input_tokens.isEnabled(), timeout=5000)


def test_sessions_targets_and_the_search_are_set_in_the_form(qtbot, qt_loop, tmp_path):
    page = _page(qtbot, tmp_path)
    page.input_tokens.setText("256")
    page.concurrency.setText("1, 4")
    page.turns.setText("3")
    page.think_time.setText("0.5")
    page.system_tokens.setText("1k")
    config = build_config(page.form(), page.context.endpoint)
    assert (config.turns, config.think_s, config.system_tokens) == (3, 0.5, 1024)
    assert [c.label for c in config.cells()] == ["3×256+1024 /0.5s in / 64 out / c=1",
                                                 "3×256+1024 /0.5s in / 64 out / c=4"]
    page.turns.setText("x")
    assert "'x' is not a whole number" in page._errors["turns"].text()
    assert not page.start_button.isEnabled()
    page.turns.setText("")
    page.find_max.setChecked(True)  # no target yet: the search is refused under its share
    assert "needs a target" in page._errors["SLO share"].text(), page._errors["SLO share"].text()
    assert not page.start_button.isEnabled()
    page.ttft_target.setText("0.2")
    page.concurrency.setText("1")
    assert page.start_button.isEnabled(), page.form_error.text()
    config = build_config(page.form(), page.context.endpoint)
    assert (config.find_max.share, config.ttft_target_s) == (0.9, 0.2)
    page.slo_share.setText("2")
    assert "above 0" in page._errors["SLO share"].text(), page._errors["SLO share"].text()


def test_a_finished_search_says_its_knee_in_the_status(qtbot, qt_loop, tmp_path):
    import dataclasses

    from desktop_app.core.throughput.findmax import FindMax
    from desktop_app.core.throughput.sweep import SweepResult
    from tests.core.throughput.test_findmax import _cell

    page = _page(qtbot, tmp_path)
    page.input_tokens.setText("256")
    page.ttft_target.setText("0.2")
    page.find_max.setChecked(True)
    config = build_config(page.form(), page.context.endpoint)
    result = SweepResult(None, dataclasses.replace(config, find_max=FindMax(0.9)),
                         page.context.endpoint.info)
    result.cells = [_cell(1, 40), _cell(2, 40), _cell(4, 12)]
    page.show_result(result)
    said = page.status_label.text()
    assert "Highest load meeting the targets for 90 % of requests: 2 concurrent" in said, said
    assert "at 4 concurrent 30 % met them" in said, said


def test_a_sharegpt_preview_says_its_reply_lengths_are_estimated(qapp, tmp_path):
    from desktop_app.core.throughput.workload import load_workload
    from desktop_app.gui.pages.throughput import workload_preview_text

    path = tmp_path / "sg.json"
    path.write_text(json.dumps([{"conversations": [{"from": "human", "value": "a question"},
                                                   {"from": "gpt", "value": "an answer " * 8}]}]),
                    encoding="utf-8")
    preview = workload_preview_text(load_workload(path), "128")
    assert "20-20 tokens, mean 20" in preview, preview  # 80 characters at 4 a token
    assert "replies at 4 characters a token here; the sweep counts them with the server's " \
        "tokenizer" in preview, preview
