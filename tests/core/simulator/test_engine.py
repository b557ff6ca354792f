"""The scheduler's behaviour as a user of the simulated server would notice it."""

from __future__ import annotations

import pytest

from desktop_app.core.simulator.engine import Engine, Profile, SimRequest

BASE = Profile(
    name="test",
    max_num_seqs=2,
    max_num_batched_tokens=512,
    kv_cache_tokens=100_000,
    prefill_tokens_per_s=10_000.0,
    prefill_ctx_slowdown_tokens=4096.0,
    step_overhead_s=0.001,
    decode_base_s=0.010,
    decode_per_seq_s=0.002,
    decode_per_ctx_token_s=1e-7,
)


def profile(**changes) -> Profile:
    values = {**BASE.__dict__, **changes}
    return Profile(**values)


def run(engine: Engine, now: float = 0.0, max_steps: int = 100_000, watch=None) -> float:
    """Step until idle; returns the end time. `watch(engine, result)` sees every step."""
    for _ in range(max_steps):
        if not engine.has_work():
            return now
        result = engine.step(now)
        if result.prefill_tokens == 0 and result.decode_tokens == 0:
            now = engine.next_ready_s()
            continue
        if watch:
            watch(engine, result)
        now += result.duration_s
    raise AssertionError("engine did not finish")


def test_never_more_than_max_num_seqs_run_and_the_rest_wait():
    engine = Engine(profile())
    reqs = [SimRequest(f"r{i}", 100, 5) for i in range(5)]
    for r in reqs:
        engine.add(r, 0.0)
    seen = []
    run(engine, watch=lambda e, _: seen.append((len(e.running), len(e.waiting))))
    assert max(running for running, _ in seen) == 2
    assert seen[0] == (2, 3)  # three wait from the start
    assert all(r.state == "finished" and r.generated == 5 for r in reqs)
    assert engine.queue_times_s[:2] == [0.0, 0.0] and min(engine.queue_times_s[2:]) > 0


def test_long_prompt_is_prefilled_in_chunks_that_share_the_budget_with_decodes():
    engine = Engine(profile())
    short = SimRequest("short", 10, 50)
    engine.add(short, 0.0)
    now = run_steps(engine, 2)  # short prefilled and decoding
    long_ = SimRequest("long", 2000, 2)
    engine.add(long_, now)
    steps = []
    run(engine, now, watch=lambda e, r: steps.append(r))
    mixed = [s for s in steps if s.prefill_tokens and s.decode_tokens]
    assert mixed, "the long prefill ran beside the decode"
    assert all(s.prefill_tokens + s.decode_tokens <= 512 for s in steps)
    assert mixed[0].prefill_tokens == 511  # the decode's token came out of the budget
    assert sum(s.prefill_tokens for s in steps) == 2000
    assert long_.first_token_s > short.first_token_s


def run_steps(engine: Engine, n: int, now: float = 0.0) -> float:
    for _ in range(n):
        now += engine.step(now).duration_s
    return now


def test_full_kv_cache_preempts_and_the_preempted_request_still_completes():
    engine = Engine(profile(kv_cache_tokens=1200, max_num_batched_tokens=2048))
    a, b = SimRequest("a", 500, 150), SimRequest("b", 500, 150)
    engine.add(a, 0.0)
    engine.add(b, 0.0)
    usage = []
    run(engine, watch=lambda e, _: usage.append(e.kv_usage))
    assert engine.num_preemptions >= 1
    assert b.preemptions >= 1  # the most recently admitted one is evicted
    assert a.generated == b.generated == 150
    assert a.state == b.state == "finished"
    assert max(usage) == pytest.approx(1.0, abs=0.01)


def test_abort_frees_the_kv_cache_at_once():
    engine = Engine(profile())
    a, b = SimRequest("a", 1000, 100), SimRequest("b", 1000, 100)
    engine.add(a, 0.0)
    engine.add(b, 0.0)
    run_steps(engine, 6)
    used = engine.kv_used_tokens
    assert used > 2000
    engine.abort(a)
    assert a.state == "aborted"
    assert engine.kv_used_tokens == used - 1000 - (a.generated - 1)
    assert a not in engine.running
    engine.abort(a)  # twice is harmless
    run(engine)
    assert b.generated == 100 and engine.kv_used_tokens == 0


def test_prefill_slows_as_the_context_grows():
    engine = Engine(profile(max_num_seqs=1))
    engine.add(SimRequest("long", 4096, 1), 0.0)
    durations = []
    run(engine, watch=lambda e, r: durations.append(r.duration_s / r.prefill_tokens))
    assert len(durations) == 8  # 4096 tokens in 512-token chunks
    assert durations == sorted(durations)
    assert durations[-1] > 1.8 * durations[0]


def test_decode_steps_get_slower_with_a_bigger_batch():
    def decode_step(n: int) -> float:
        engine = Engine(profile(max_num_seqs=n, max_num_batched_tokens=10_000))
        for i in range(n):
            engine.add(SimRequest(f"r{i}", 100, 10), 0.0)
        now = run_steps(engine, 1)  # all prefilled together
        return engine.step(now).duration_s

    one, four, sixteen = decode_step(1), decode_step(4), decode_step(16)
    assert one < four < sixteen
    assert four - one == pytest.approx(3 * (0.002 + 100 * 1e-7), rel=0.01)


def test_preprocessing_delays_admission_without_blocking_the_clock():
    engine = Engine(profile(preprocess_s=0.5))
    engine.add(SimRequest("r", 100, 2), 1.0)
    idle = engine.step(1.0)
    assert idle.duration_s == 0 and not idle.new_tokens
    assert engine.next_ready_s() == pytest.approx(1.5)
    assert engine.step(1.5).new_tokens  # prefilled: first token


def test_a_per_request_chunk_cap_lets_a_second_prefill_share_each_step():
    """vLLM's long_prefill_token_threshold: with the budget above it, the second of two
    simultaneous long prompts starts at once instead of after the first, and the first one's
    first token comes a little later for it."""
    def first_tokens(**changes) -> tuple[float, float]:
        engine = Engine(profile(**changes))
        a, b = SimRequest("a", 2000, 1), SimRequest("b", 2000, 1)
        engine.add(a, 0.0)
        engine.add(b, 0.0)
        run(engine)
        return a.first_token_s, b.first_token_s

    serial_a, serial_b = first_tokens(max_num_batched_tokens=128)
    shared_a, shared_b = first_tokens(max_num_batched_tokens=160, long_prefill_token_threshold=128)
    assert serial_b > 1.9 * serial_a  # one prefill after the other
    assert serial_a < shared_a < serial_b  # the first is slowed by the second's chunks...
    assert shared_b == pytest.approx(serial_b, rel=0.05)  # ...which finishes about as late
