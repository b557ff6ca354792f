"""The server settings Throughline's findings and suggestions name, as each engine spells them.

One table for the diagnosis (what limits) and the predicted effects (what changing it would
do), so a finding and its suggestion never name two different settings for one engine. An
engine missing from a table has no such setting to name; the words then say it generically.
"""

from __future__ import annotations

# The limit on requests running at once. TGI's is max-batch-size ("how many requests it can
# process at once"); its max-batch-total-tokens is the batch's token budget, the KV cache's
# role (below), and a token count cannot be "raised to 4".
CAP = {"vllm": "max-num-seqs", "sglang": "max-running-requests", "llamacpp": "--parallel",
       "tgi": "max-batch-size"}
# The per-step token budget that decides how much prefill a decode step carries (TGI's
# max-batch-prefill-tokens bounds the prefill batch the same way).
BUDGET = {"vllm": "max-num-batched-tokens", "sglang": "chunked-prefill-size",
          "llamacpp": "--ubatch-size", "tgi": "max-batch-prefill-tokens"}
# The memory given to the KV cache, and the longest context a request may have.
KV_MEMORY = {"vllm": "gpu-memory-utilization", "sglang": "mem-fraction-static",
             "tgi": "max-batch-total-tokens"}
CONTEXT = {"vllm": "max-model-len", "sglang": "context-length", "llamacpp": "--ctx-size",
           "tgi": "max-total-tokens"}
