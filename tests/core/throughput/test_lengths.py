"""Lengths as distributions (#29): an axis value that each request of a cell draws its own
prompt or output length from, sent token-exact, stored with the cell, compared only with a
cell drawn the same way."""

import asyncio
import random
from collections import Counter

import pytest

from desktop_app.cli import main
from desktop_app.core.compare.session import compare
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.parsing import InputError
from desktop_app.core.simulator.launcher import start_simulator
from desktop_app.core.store import Store
from desktop_app.core.throughput.config import SweepConfig, axis_fields
from desktop_app.core.throughput.export import sweep_to_json
from desktop_app.core.throughput.lengths import Lengths, parse_lengths, spread
from desktop_app.core.throughput.records import load_sweep
from desktop_app.core.throughput.resume import sweep_config_from_json
from desktop_app.core.throughput.sweep import cell_lengths, run_sweep
from tests.lang_check import english_runs


def _one(text: str) -> Lengths:
    (value,) = parse_lengths(text, "--input-tokens", max_value=1_000_000)
    return value


def test_a_plain_axis_is_what_it_always_was():
    assert axis_fields("512,4k 512", "--input-tokens", "input") == {"input_tokens": (512, 4096)}
    fields = axis_fields([512, "N(1k,256)"], "--input-tokens", "input")
    assert fields["input_tokens"] == ()
    assert [v.label for v in fields["input_lengths"]] == ["512", "N(1024,256)"]
    config = SweepConfig(EndpointConfig("http://x", model="m"), **fields, concurrency=(1, 4))
    assert config.input_tokens == (512, 1024)  # the nominal lengths
    assert [c.label for c in config.cells()] == [
        "512 in / 128 out / c=1", "512 in / 128 out / c=4",
        "N(1024,256) in / 128 out / c=1", "N(1024,256) in / 128 out / c=4"]


def test_each_kind_is_read_with_its_bounds(tmp_path):
    normal = _one("N(512,128)")
    assert (normal.kind, normal.value, normal.low, normal.high) == ("normal", 512, 128, 896)
    bounded = _one("n(512, 128, 256, 1024)")
    assert (bounded.low, bounded.high, bounded.label) == (256, 1024, "N(512,128,256,1024)")
    uniform = _one("U(100,900)")
    assert (uniform.value, uniform.low, uniform.high) == (500, 100, 900)
    lengths = tmp_path / "lengths.txt"
    lengths.write_text("# prompt lengths seen in production\n100\n\n300  # a comment\n900\n")
    from_file = _one(f"F({lengths})")
    assert (from_file.values, from_file.value, from_file.label) == (
        (100, 300, 900), 433, "F(lengths.txt)")
    for value in (normal, bounded, uniform, from_file):
        assert Lengths.from_json(value.to_json()) == value


@pytest.mark.parametrize("text, said", [
    ("N(512)", "'N(512)' is not a length: write a count"),
    ("Q(1,2)", "'Q(1,2)' is not a length"),
    ("U(900,100)", "the smallest length (900) is above the largest (100)"),
    ("N(5,100,50,60)", "the mean is outside its bounds (50 to 60)"),
    ("N(512,-3)", "'-3' must be a number >= 0"),
    ("U(1,2k0)", "'2k0' is not a whole number"),
    ("N(512,128", "'N(512,128' is not a length"),
])
def test_a_bad_value_is_refused_naming_the_item(text, said):
    with pytest.raises(InputError) as caught:
        parse_lengths(f"256, {text}", "--input-tokens", max_value=1_000_000)
    assert caught.value.field == "--input-tokens"
    assert said in str(caught.value), str(caught.value)


def test_a_bad_lengths_file_names_its_line(tmp_path):
    bad = tmp_path / "l.txt"
    bad.write_text("100\n200\nlots\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"l.txt:3: 'lots' is not a whole number from 1 to"):
        _one(f"F({bad})")
    empty = tmp_path / "e.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(InputError, match="no lengths in it"):
        _one(f"F({empty})")
    with pytest.raises(InputError, match="no such file"):
        _one(f"F({tmp_path / 'missing.txt'})")


def test_draws_are_seeded_bounded_and_a_file_is_sent_whole_each_pass():
    normal = _one("N(512,128,300,700)")
    first = normal.draw(500, random.Random("s"))
    assert first == normal.draw(500, random.Random("s"))
    assert min(first) >= 300 and max(first) <= 700
    assert 480 < spread(first)["mean"] < 544
    uniform = _one("U(10,20)")
    assert set(uniform.draw(400, random.Random(1))) == set(range(10, 21))
    values = Lengths("file", 5, low=1, high=9, values=(1, 5, 9))
    seven = values.draw(7, random.Random(2))
    assert Counter(seven[:3]) == Counter([1, 5, 9]) == Counter(seven[3:6])


def test_every_load_and_a_repeated_sweep_send_the_same_lengths():
    config = SweepConfig(EndpointConfig("http://x", model="m"),
                         **axis_fields("N(300,80)", "i", "input"), concurrency=(1, 4),
                         requests_per_cell=20)
    low, high = config.cells()
    assert cell_lengths(config, low) == cell_lengths(config, high)
    other = SweepConfig(EndpointConfig("http://y", model="m"),
                        **axis_fields("N(300,80)", "i", "input"), requests_per_cell=20)
    assert cell_lengths(other, other.cells()[0]) == cell_lengths(config, low)
    assert len(set(cell_lengths(config, low)[0])) > 5


@pytest.fixture(scope="module")
def instant():
    with start_simulator("instant") as sim:
        yield sim


def _sweep(url, inputs, outputs="8", **kw):
    return SweepConfig(EndpointConfig(url, model="sim/llama-sim-8b"),
                       **axis_fields(inputs, "input tokens", "input"),
                       **axis_fields(outputs, "output tokens", "output"),
                       concurrency=(1, 2), requests_per_cell=24, warmup=1,
                       metrics_interval_s=0.1, **kw)


def test_a_drawn_cell_sends_each_length_token_exact_and_shows_what_it_sent(instant, tmp_path):
    config = _sweep(instant.url, "N(200,50)", "U(4,12)")
    with Store.open(tmp_path / "r.db") as store:
        result = asyncio.run(asyncio.wait_for(run_sweep(config, store), 60))
        run = load_sweep(store, result.run_id)
        stored_config = store.get_run(result.run_id).config
    ins, outs = cell_lengths(config, config.cells()[0])
    sent = [r for r in result.requests if r.cell == 0]
    # Each request asked for its own draw and the server counted exactly that.
    assert [r.prompt_tokens_target for r in sorted(sent, key=lambda r: r.index)] == ins
    assert all(r.prompt_tokens == r.prompt_tokens_target for r in sent)
    assert sorted(r.completion_tokens for r in sent) == sorted(outs)
    assert len({r.prompt_tokens for r in sent}) > 5
    # Stored with the cell, read back as the same distribution.
    assert [c.spec.label for c in run.cells] == ["N(200,50) in / U(4,12) out / c=1",
                                                  "N(200,50) in / U(4,12) out / c=2"]
    assert run.cells[1].result.prefill_change is not None  # against c=1 of the same draw
    doc = sweep_to_json(result)
    cell = doc["cells"][0]
    assert cell["lengths"]["input"]["label"] == "N(200,50)"
    assert cell["lengths_sent"]["input"]["mean"] == pytest.approx(sum(ins) / len(ins))
    assert cell["lengths_sent"]["output"]["max"] == max(outs)
    # A resumed sweep is the same sweep.
    again = sweep_config_from_json(stored_config, config.endpoint)
    assert again.input_lengths == config.input_lengths
    assert again.cells() == config.cells()


def test_a_drawn_cell_is_never_compared_with_a_fixed_one(instant, tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        fixed = asyncio.run(run_sweep(_sweep(instant.url, "200"), store)).run_id
        drawn = asyncio.run(run_sweep(_sweep(instant.url, "N(200,50)"), store)).run_id
        same = asyncio.run(run_sweep(_sweep(instant.url, "N(200,50)"), store)).run_id
        unlike = compare(store, [fixed, drawn])
        alike = compare(store, [drawn, same])
    cells = [r for r in unlike.rows if r.scope == "cell"]
    assert cells == []  # nothing set side by side: the lengths differ
    assert any(lv["lengths_differ"] for r in unlike.rows if r.scope == "tally"
               for lv in r.verdict.params["levels"])
    drawn_rows = [r for r in alike.rows if r.scope == "cell"]
    assert drawn_rows and all(r.params["input_lengths"] == "N(200,50)" for r in drawn_rows)


def test_the_cli_takes_distributions_and_says_a_bad_one_in_chinese(instant, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.setenv("THROUGHLINE_DB", str(tmp_path / "r.db"))
    assert main(["throughput", "--base-url", instant.url, "--input-tokens", "U(100,300)",
                 "--output-tokens", "8", "--concurrency", "1", "--requests", "12",
                 "--warmup", "0"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.strip().startswith("U(100,300):"))
    assert "[" in row and "12/12" in row, out
    monkeypatch.setenv("THROUGHLINE_LANG", "zh")
    assert main(["throughput", "--base-url", instant.url, "--input-tokens", "N(512)",
                 "--concurrency", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "'N(512)' 不是长度" in err, err
    assert english_runs(err) == [], err
