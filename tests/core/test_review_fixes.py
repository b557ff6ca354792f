"""Two edges found in review: a Retry-After that is not a finite number, and the ETA of a
resumed sweep (its clock includes the time it lay dead)."""

import time

from desktop_app.core.endpoint.client import _retry_after_s
from desktop_app.core.endpoint.types import EndpointConfig
from desktop_app.core.throughput.config import SweepConfig
from desktop_app.core.throughput.sweep import _Run


def test_a_retry_after_of_inf_or_nan_is_ignored_not_waited_for():
    assert _retry_after_s("7") == 7.0
    assert _retry_after_s("-3") == 0.0
    assert _retry_after_s("inf") is None
    assert _retry_after_s("nan") is None


def test_a_resumed_runs_eta_counts_only_this_process_time():
    config = SweepConfig(EndpointConfig("http://x", model="m"), input_tokens=(128,),
                         concurrency=(1,), output_tokens=(8,), requests_per_cell=10, warmup=0)
    run = _Run(config, None, None)
    run.restart_clock(time.time() - 3600)  # the run started an hour ago, then was killed
    assert run.elapsed() > 3599  # cells stay on the run's own clock
    run.run_done = 1
    eta = run.eta()
    assert eta is not None and eta < 60  # not 9 hours: 1 of 10 done in a moment
