"""A sweep run on Ray whose actors' clocks were known only beyond 1 ms shows the
`ray_clocks_uncertain` finding where every other finding shows: in the comparison PDF, in
English and in Chinese, read from the run's stored configuration (no Ray needed)."""

import shutil
import subprocess

import pytest

from desktop_app.core.store import Store
from desktop_app.core.throughput.ray_pool import save_clocks
from desktop_app.core.throughput.records import load_sweep, save_diagnosis
from desktop_app.report.diagnosis_words import finding_text, suggestion_text
from tests.core.throughput.test_ray_clocks_finding import BEYOND
from tests.lang_check import english_runs


def _stored_sweep(store: Store, name: str) -> int:
    """A finished one-cell sweep of 4 requests, its diagnosis kept (nothing stood out)."""
    run_id = store.create_run("throughput", name=name, model="m",
                              config={"input_tokens": [128]})
    cell = store.add_cell(run_id, cell_index=0, input_tokens=128, output_tokens=8,
                          concurrency=1, status="completed")
    writer = store.writer()
    t0 = 1_700_000_000.0
    for seq in range(4):
        writer.add_request({"run_id": run_id, "cell_id": cell, "seq": seq, "sent_at": t0 + seq,
                            "ttft_s": 0.05, "e2e_s": 0.2, "prompt_tokens": 128,
                            "completion_tokens": 8, "prefill_tps": 128 / 0.05,
                            "decode_tps": 40.0})
    writer.close()
    store.update_cell(cell, summary={"count": 4, "ok": 4, "failures_by_class": {},
                                     "ttft_s": {"n": 4, "mean": 0.05, "p50": 0.05, "p90": 0.05,
                                                "p99": 0.05, "min": 0.05, "max": 0.05}})
    save_diagnosis(store, run_id, [])
    store.finish_run(run_id, "completed")
    return run_id


def _text(pdf) -> str:
    out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    return "".join(out.split())


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext is not installed")
def test_the_pdf_shows_the_clocks_finding_of_a_ray_run_in_both_languages(tmp_path, qapp):
    from desktop_app.report import write_comparison_pdf

    with Store.open(tmp_path / "r.db") as store:
        on_ray = _stored_sweep(store, "on ray")
        local = _stored_sweep(store, "local")
        save_clocks(store, on_ray, BEYOND["ray_clocks"][0])  # stored as the sweep ended
        [finding] = load_sweep(store, on_ray).findings
        assert load_sweep(store, local).findings == ()
        en = _text(write_comparison_pdf(store, [on_ray, local], tmp_path / "en.pdf", "en"))
        zh = _text(write_comparison_pdf(store, [on_ray, local], tmp_path / "zh.pdf", "zh"))
    assert finding.code == "ray_clocks_uncertain"
    for text, lang in ((en, "en"), (zh, "zh")):
        for words in (finding_text(finding, lang), suggestion_text(finding, lang)):
            assert "".join(words.split()) in text, (lang, words)
    assert english_runs(finding_text(finding, "zh")) == []
