"""A continuous-batching engine model, free of any clock.

The engine knows nothing of HTTP or of wall time: a driver asks it to plan one scheduler step
at time `now_s`, receives how long the step takes (seconds, from the profile's cost model) and
which requests got tokens, and decides itself whether to sleep that long (the real-time driver
behind the HTTP server) or to jump the clock (the virtual-time driver behind `whatif`). Both
therefore schedule identically.

The scheduler follows vLLM's V1 scheduler in the parts that shape latency:

* at most `max_num_seqs` requests run at once; the rest wait in arrival order;
* one token budget per step (`max_num_batched_tokens`) is shared by decodes (one token each,
  served first) and prefill chunks (chunked prefill: a long prompt takes several steps, at
  most `long_prefill_token_threshold` tokens a step when that is set);
* a request's KV cache holds every token computed for it; when the cache
  (`kv_cache_tokens`) is full, the most recently admitted request is preempted: its KV is
  freed and it goes back to the head of the queue to recompute prompt plus generated tokens.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Profile:
    """What the simulated server is: its limits and its cost model.

    Times are seconds; sizes are tokens. A step's duration is

        step_overhead_s
        + (decode_base_s + decode_per_seq_s * n_decodes + decode_per_ctx_token_s * ctx_sum
           if any request decodes in the step)
        + sum over prefill chunks of chunk_tokens * prefill_s_per_token(context)

    where `prefill_s_per_token(ctx) = (1 + ctx / prefill_ctx_slowdown_tokens) /
    prefill_tokens_per_s` (attention makes each prompt token dearer as the context grows) and
    `ctx_sum` is the total context of the decoding requests (attention reads their KV).
    `preprocess_s` is the API server's work before a request reaches the scheduler
    (tokenization, chat template); it runs concurrently for all requests, so it adds to every
    request's time to first token without holding up the others.

    The bundled profiles, and how seed-reference was calibrated against the seed reports'
    figures, are described in docs/SIMULATOR-MODEL.md.
    """

    name: str
    description: str = ""
    model: str = "sim/llama-sim-8b"
    max_model_len: int = 131_072
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 8192
    # vLLM's long_prefill_token_threshold: the most prompt tokens ONE request may take in a
    # step (0 or less: no cap, it may take the whole budget). With a budget above the cap a second
    # request's prefill shares each step instead of waiting for the first one's to finish.
    long_prefill_token_threshold: int = 0
    kv_cache_tokens: int = 1_000_000
    prefill_tokens_per_s: float = 0.0  # 0 means free (instant profile)
    prefill_ctx_slowdown_tokens: float = math.inf
    preprocess_s: float = 0.0
    step_overhead_s: float = 0.0
    decode_base_s: float = 0.0
    decode_per_seq_s: float = 0.0
    decode_per_ctx_token_s: float = 0.0
    natural_output_tokens: int = 200  # mean answer length when EOS is not ignored
    gpu_memory_utilization: float = 0.9  # reported only, for the diagnosis text
    engine_label: str = "vllm"  # which engine the simulator impersonates on /version, /metrics

    def prefill_cost_s(self, start: int, n: int) -> float:
        """Seconds to prefill tokens `start .. start+n` of a context (mid-point rule)."""
        if n <= 0 or self.prefill_tokens_per_s <= 0:
            return 0.0
        mid = start + n / 2
        return n * (1 + mid / self.prefill_ctx_slowdown_tokens) / self.prefill_tokens_per_s

    def decode_cost_s(self, n_decodes: int, ctx_sum: int) -> float:
        """Seconds a step spends on `n_decodes` one-token decodes over `ctx_sum` context."""
        if n_decodes <= 0:
            return 0.0
        return (
            self.decode_base_s
            + self.decode_per_seq_s * n_decodes
            + self.decode_per_ctx_token_s * ctx_sum
        )


@dataclass(eq=False)
class SimRequest:
    """One request inside the engine. `output_tokens` is how many tokens it will generate."""

    rid: str
    prompt_tokens: int
    output_tokens: int
    arrival_s: float = 0.0
    ready_s: float = 0.0  # arrival plus the profile's preprocessing time
    # state, owned by the engine
    computed: int = 0  # tokens whose KV is in the cache
    generated: int = 0  # output tokens produced so far
    admitted_s: float | None = None  # first time it was scheduled (queue time ends)
    first_token_s: float | None = None
    finished_s: float | None = None
    preemptions: int = 0
    state: str = "new"  # waiting | running | finished | aborted

    @property
    def context_target(self) -> int:
        """Tokens that must be in the KV cache before the next token can be sampled."""
        return self.prompt_tokens + max(self.generated - 1, 0) if self.generated else self.prompt_tokens

    @property
    def done(self) -> bool:
        return self.state in ("finished", "aborted")


@dataclass
class StepResult:
    """What one step did. Tokens become visible at `now_s + duration_s`."""

    duration_s: float
    new_tokens: list[SimRequest] = field(default_factory=list)  # one token each
    finished: list[SimRequest] = field(default_factory=list)
    prefill_tokens: int = 0
    decode_tokens: int = 0


class Engine:
    """The scheduler and cost model. Not thread-safe; one driver owns it."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.waiting: deque[SimRequest] = deque()
        self.running: list[SimRequest] = []
        self.num_preemptions = 0
        self.queue_times_s: list[float] = []  # drained by the metrics endpoint
        self.requests_finished = 0

    # --- requests in and out -------------------------------------------------------------
    def add(self, req: SimRequest, now_s: float) -> None:
        """Queue a request that arrived at `now_s`."""
        req.arrival_s = now_s
        req.ready_s = now_s + self.profile.preprocess_s
        req.state = "waiting"
        self.waiting.append(req)

    def abort(self, req: SimRequest) -> None:
        """Drop a request (client went away); frees its KV cache at once."""
        if req.done:
            return
        if req in self.running:
            self.running.remove(req)
        elif req in self.waiting:
            self.waiting.remove(req)
        req.state = "aborted"
        req.computed = 0

    def has_work(self) -> bool:
        return bool(self.waiting or self.running)

    def num_waiting(self, now_s: float) -> int:
        """Requests queued for the scheduler at `now_s`; those still being preprocessed by the API
        server are not in vLLM's scheduler queue yet, so they do not count (as on vLLM)."""
        return sum(1 for r in self.waiting if r.ready_s <= now_s)

    def next_ready_s(self) -> float | None:
        """When the earliest waiting request finishes preprocessing (None if none waits)."""
        return min((r.ready_s for r in self.waiting), default=None)

    # --- observable state (what /metrics reports) --------------------------------------------
    @property
    def kv_used_tokens(self) -> int:
        return sum(r.computed for r in self.running)

    @property
    def kv_usage(self) -> float:
        """Fraction of the KV cache in use, 0..1."""
        return min(1.0, self.kv_used_tokens / self.profile.kv_cache_tokens)

    # --- one scheduler step -------------------------------------------------------------
    def step(self, now_s: float) -> StepResult:
        """Plan and account one step starting at `now_s`; returns its duration and effects."""
        p = self.profile
        budget = p.max_num_batched_tokens
        cap = p.long_prefill_token_threshold if p.long_prefill_token_threshold > 0 else budget
        kv_free = p.kv_cache_tokens - self.kv_used_tokens
        decodes: list[SimRequest] = []
        chunks: list[tuple[SimRequest, int]] = []

        # Running requests first, in admission order: decodes then unfinished prefills.
        i = 0
        while i < len(self.running) and budget > 0:
            req = self.running[i]
            need = 1 if req.computed >= req.context_target else min(
                req.context_target - req.computed, budget, cap
            )
            while need > kv_free and self.running[-1] is not req:
                kv_free += self._preempt(self.running[-1], now_s)
            if need > kv_free:
                # Even alone it does not fit: preempt itself, it will retry later.
                kv_free += self._preempt(req, now_s)
                continue
            if req.computed >= req.context_target:
                decodes.append(req)
            else:
                chunks.append((req, need))
            budget -= need
            kv_free -= need
            i += 1

        # Then admit waiting requests while there is a slot, budget and cache room.
        while self.waiting and budget > 0 and len(self.running) < p.max_num_seqs:
            req = self.waiting[0]
            if req.ready_s > now_s:
                break
            need = min(req.context_target - req.computed, budget, cap)
            if need > kv_free:
                break
            self.waiting.popleft()
            req.state = "running"
            if req.admitted_s is None:
                req.admitted_s = now_s
                self.queue_times_s.append(now_s - req.arrival_s)
            self.running.append(req)
            chunks.append((req, need))
            budget -= need
            kv_free -= need

        ctx_sum = sum(r.computed for r in decodes)
        duration = p.step_overhead_s + p.decode_cost_s(len(decodes), ctx_sum)
        for req, n in chunks:
            duration += p.prefill_cost_s(req.computed, n)
        if not decodes and not chunks:
            return StepResult(0.0)

        end_s = now_s + duration
        result = StepResult(duration)
        for req in decodes:
            req.computed += 1
            self._emit(req, end_s, result)
        result.decode_tokens = len(decodes)
        for req, n in chunks:
            req.computed += n
            result.prefill_tokens += n
            if req.computed >= req.context_target:
                self._emit(req, end_s, result)
        return result

    def _emit(self, req: SimRequest, end_s: float, result: StepResult) -> None:
        req.generated += 1
        if req.first_token_s is None:
            req.first_token_s = end_s
        result.new_tokens.append(req)
        if req.generated >= req.output_tokens:
            req.state = "finished"
            req.finished_s = end_s
            req.computed = 0
            self.running.remove(req)
            self.requests_finished += 1
            result.finished.append(req)

    def _preempt(self, req: SimRequest, now_s: float) -> int:
        """Free `req`'s KV cache and requeue it at the head; returns the tokens freed."""
        freed = req.computed
        self.running.remove(req)
        req.computed = 0
        req.state = "waiting"
        req.preemptions += 1
        self.num_preemptions += 1
        self.waiting.appendleft(req)
        return freed
