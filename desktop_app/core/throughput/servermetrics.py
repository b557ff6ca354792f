"""Scrape a server's Prometheus `/metrics` during a run and map each engine's names to one timeline.

Engines name the same figures differently (DOMAIN.md, "Server signals"): each engine's
descriptor (core/engines: vLLM, SGLang, llama.cpp, TGI) names the series mapped here to
`MetricSample.running`, `waiting`, `kv_cache_usage` and `preemptions`.
Counts are summed across label sets (several models or engine replicas behind one /metrics); the
KV-cache fraction takes the fullest one, since a full cache anywhere is what makes requests wait.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Callable

import httpx
from prometheus_client.parser import text_string_to_metric_families

from desktop_app.core import engines
from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.limits import with_limit
from desktop_app.core.endpoint.types import EndpointConfig, MetricSample

log = logging.getLogger(__name__)

class _Series:
    """What a scrape reads, built from the engine descriptors (`Engine.series`, core/engines)
    and rebuilt when an engine is added: `sources` maps a `MetricSample` field to the series
    that feed it, in order of preference (engines in their order, each one's newer name
    first: where a server exposes both, the newer one wins); `fractions` are the KV-cache
    series (0..1); `queue_time` the (sum, count) pairs of queue-time histograms, kept in `raw`
    only (the diagnosis reads their change over a cell: `diagnosis.server_queue_time`); only
    these two lines of a histogram are parsed, never its buckets. Sample names, not family
    names: the parser strips `_total` from a counter's family name but keeps it on the
    sample."""

    def __init__(self) -> None:
        every = engines.all_engines()
        self.sources = {f: tuple(dict.fromkeys(n for e in every for n in e.series.get(f, ())))
                        for f in engines.SAMPLE_FIELDS}
        self.fractions = frozenset(self.sources["kv_cache_usage"])
        self.queue_time = tuple(
            (s, c) for e in every
            for s, c in zip(e.series.get("queue_time_sum", ()), e.series.get("queue_time_count", ())))
        self.prefix = {role: tuple(dict.fromkeys(n for e in every
                                                 for n in e.series.get(role, ())))
                       for role in ("prefix_hits", "prefix_queries", "prefix_computed")}
        self.wanted = frozenset(n for names in self.sources.values() for n in names) | {
            n for pair in self.queue_time for n in pair} | {
            n for names in self.prefix.values() for n in names}
        # Real /metrics bodies run to hundreds of histogram lines; only lines starting with a
        # wanted name reach the (pure Python) parser, which keeps a scrape cheap beside a
        # running benchmark.
        self.prefixes = tuple(sorted(self.wanted))


_built: tuple[int, _Series] | None = None


def _series() -> _Series:
    global _built
    generation = engines.generation()
    if _built is None or _built[0] != generation:
        _built = (generation, _Series())
    return _built[1]


def prefix_cache(before: dict[str, float], after: dict[str, float]) -> dict | None:
    """The prompt tokens a server served from its prefix cache between two scrapes (their
    `raw`), by its own counters (`Engine.series`' prefix roles): `hits`, `queries` (every
    prompt token looked up: vLLM's queries, or llama.cpp's cached plus computed), `share`
    (hits / queries) and the `source` series. None when the server has no such counters, they
    went backwards (a restart) or nothing was looked up."""
    tables = _series()

    def delta(role: str) -> tuple[float, str] | None:
        for name in tables.prefix[role]:
            if name in before and name in after:
                return after[name] - before[name], name
        return None

    hits, queries, computed = (delta(r) for r in ("prefix_hits", "prefix_queries",
                                                  "prefix_computed"))
    if hits is None:
        return None
    if queries is not None:
        total = queries[0]
    elif computed is not None:
        total = hits[0] + computed[0]
    else:
        return None
    if hits[0] < 0 or total <= 0 or hits[0] > total:
        return None
    return {"hits": hits[0], "queries": total, "share": hits[0] / total, "source": hits[1]}


def queue_time(raw: dict[str, float]) -> tuple[float, float] | None:
    """(sum, count) of the first queue-time histogram a sample's `raw` holds, or None."""
    for total, count in _series().queue_time:
        if total in raw and count in raw:
            return raw[total], raw[count]
    return None


def parse_metrics(text: str, t_s: float) -> MetricSample:
    """Map a Prometheus text body to a `MetricSample` taken at `t_s` (seconds since run start).

    At most `limits.MAX_METRICS_LINES` wanted lines are parsed; impossible values (inf, NaN,
    negative, absurd: `plausible_metric`) are dropped. Unknown names give None fields; a body that is not Prometheus text gives an all-None sample
    (logged at debug level), never an exception. `raw` holds each mapped source series by name,
    aggregated across its label sets.
    """
    tables = _series()
    lines = [line for line in text.splitlines() if line.startswith(tables.prefixes)]
    if len(lines) > limits.MAX_METRICS_LINES:  # bounds the (pure Python) parser's time
        log.debug("/metrics: %d wanted lines, only the first %d read", len(lines),
                  limits.MAX_METRICS_LINES)
        lines = lines[:limits.MAX_METRICS_LINES]
    raw: dict[str, float] = {}
    try:
        for family in text_string_to_metric_families("\n".join(lines) + "\n"):
            for sample in family.samples:
                value = float(sample.value)
                if sample.name not in tables.wanted or not plausible_metric(sample.name, value):
                    continue
                if sample.name in tables.fractions:
                    raw[sample.name] = max(raw.get(sample.name, value), value)
                else:
                    raw[sample.name] = raw.get(sample.name, 0.0) + value
    except Exception as exc:  # noqa: BLE001 - any parser failure means "not Prometheus text"
        log.debug("not Prometheus text (%s): %.80r", exc, text)
        return MetricSample(t_s=t_s)
    fields = {field: next((raw[name] for name in names if name in raw), None)
              for field, names in tables.sources.items()}
    return MetricSample(t_s=t_s, raw=raw, **fields)


# A gauge or counter of requests beyond this is not a real server's (no server runs a hundred
# million requests at once); a KV-cache fraction is within 0..1 (a little over for rounding).
MAX_PLAUSIBLE_COUNT = 1e8
MAX_PLAUSIBLE_FRACTION = 1.5


def plausible_metric(name: str, value: float) -> bool:
    """Whether a scraped value can be true: finite, not negative, within range. Others (inf,
    NaN, -3, 1e300) are dropped from the sample, logged at debug level, never used."""
    top = MAX_PLAUSIBLE_FRACTION if name in _series().fractions else MAX_PLAUSIBLE_COUNT
    ok = math.isfinite(value) and 0 <= value <= top
    if not ok:
        log.debug("/metrics: %s = %r ignored (impossible)", name, value)
    return ok


class MetricsScraper:
    """Polls `<root_url>/metrics` every `interval_s` seconds while a run goes on.

    Times come from `clock` (seconds); a sample's `t_s` is the middle of its scrape minus `t0`
    (default: `clock()` at construction: pass the sweep's own start to share its clock). The
    schedule is absolute (scrape k starts at k x interval), so it does not drift; a scrape slower
    than the interval skips the slots it overran instead of queueing extra scrapes.

    `errors` counts failed scrapes (connection errors, timeouts, non-200 answers after the first);
    `scrapes` counts successful ones; `available` is False once the server turned out to have no
    /metrics (a 404 on the first scrape: `run` then returns at once, quietly).
    """

    def __init__(self, client: httpx.AsyncClient, config: EndpointConfig, interval_s: float = 0.5,
                 clock: Callable[[], float] = time.perf_counter, t0: float | None = None) -> None:
        if interval_s <= 0:
            raise ValueError("interval_s must be positive")
        self._client = client
        self._url = f"{config.root_url}/metrics"
        self._headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        # A scrape may take a few intervals before it counts as failed, and never less than
        # 3 s: a busy llama.cpp answers /metrics between decode steps, and a late answer still
        # says how many ran and waited (a 1 s limit lost exactly the scrapes of a queue).
        self._timeout = httpx.Timeout(max(3.0, 4 * interval_s), connect=config.connect_timeout_s)
        self.interval_s = interval_s
        self._clock = clock
        self.t0 = clock() if t0 is None else t0
        self.errors = 0
        self.scrapes = 0
        self.available: bool | None = None  # None until the first answer
        self.last_error: str | None = None

    async def run(self, on_sample: Callable[[MetricSample], None]) -> None:
        """Scrape until cancelled, calling `on_sample` with each sample (in the loop's thread).

        Cancellation stops at once and propagates `CancelledError` (nothing to clean up: the
        caller owns the client). Returns by itself only when the server has no /metrics.
        """
        next_s = self._clock()
        while True:
            started = self._clock()
            response = await self._get()
            if response is not None:
                if response.status_code == 404 and self.available is None:
                    self.available = False
                    log.info("no /metrics at %s: server signals are off for this run", self._url)
                    return
                if response.status_code != 200:
                    self._failed(f"HTTP {response.status_code}")
                else:
                    self.available = True
                    self.scrapes += 1
                    middle = (started + self._clock()) / 2
                    # Off the event loop: even a capped body takes a while to parse.
                    text = response.text
                    sample = await asyncio.to_thread(parse_metrics, text, middle - self.t0)
                    on_sample(sample)
            next_s += self.interval_s
            now = self._clock()
            if now > next_s:  # overran: skip to the next slot still ahead
                next_s += math.ceil((now - next_s) / self.interval_s) * self.interval_s
            await asyncio.sleep(next_s - now)

    async def _get(self) -> httpx.Response | None:
        """GET /metrics, bounded (MetricsTooLarge is an HTTPError); None when it failed."""
        try:
            request = self._client.build_request("GET", self._url, headers=self._headers,
                                                 timeout=self._timeout)
            with_limit(request, limits.MAX_METRICS_BYTES, "metrics")
            return await self._client.send(request)
        except httpx.HTTPError as exc:
            self._failed(f"{type(exc).__name__}: {exc}")
            return None

    async def once(self) -> MetricSample | None:
        """One scrape now (a cell's first and last counters), or None when it failed."""
        response = await self._get()
        if response is None:
            return None
        if response.status_code != 200:
            self._failed(f"HTTP {response.status_code}")
            return None
        return await asyncio.to_thread(parse_metrics, response.text, self._clock() - self.t0)

    def _failed(self, reason: str) -> None:
        self.errors += 1
        if self.errors == 1 or reason != self.last_error:
            log.debug("scrape of %s failed: %s", self._url, reason)
        self.last_error = reason
