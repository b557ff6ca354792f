"""The words of the throughput diagnosis, in English and Simplified Chinese.

The core (`core/throughput/diagnosis.py`, `checks.py`) reports each finding as a code, a
severity and the values its words quote (`Finding.params`: numbers, cells, metric names, engine
knobs, sub-part codes), with the code of a suggested change (`Finding.suggestion_code`). The CLI
(`throughline throughput`, `export`, `whatif`), the GUI's diagnosis pane, the comparison PDF and
the compare rows render them here, in the reader's language:

- `finding_text(finding, lang)`: the finding as sentences;
- `suggestion_text(finding, lang)`: what to change, or None, with its effect as the model
  fitted to the run predicts it (`core/throughput/effects.py`) where the run has one; a
  suggestion the model predicts gains nothing is replaced by the sentence saying so and why
  (`suggestion_parts` gives the two apart, `effect_text` the effect alone);
- `findings_text(findings, lang)`: the diagnosis as numbered paragraphs (what the CLI prints);
- `severity_text(severity, lang)`.

A finding kept with a run before findings had codes and values (#12) has no `params`: its stored
English `message` and `suggestion` are shown as they are (`is_stored_text` says so). Numbers,
units, metric names and engine flags stay as they are in every language.

The predicted effect's words and renderer are `effect_words.py`'s, the sweep's cell-table words
`sweep_table_words.py`'s (`CELL_TABLE`, `cell_table_words` are importable from here too).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop_app.report.effect_words import EFFECT_WORDS, effect_of
from desktop_app.report.strings import LANGS, lookup
from desktop_app.report.sweep_table_words import CELL_TABLE, cell_table_words
from desktop_app.report.words_common import SHARED_WORDS, load_text
from desktop_app.report.words_common import plural_s as _s

__all__ = ["CELL_TABLE", "LANGS", "WORDS", "cell_table_words", "cell_text", "effect_text",
           "finding_text", "findings_text", "is_stored_text", "severity_text",
           "suggestion_parts", "suggestion_text"]

# The findings' and suggestions' own words; `WORDS` adds the shared separators and the
# predicted effects' words (`effect_words.EFFECT_WORDS`) to make the one catalogue.
_FINDING_WORDS = {
    "en": {
        # --- the text export's frame
        "diagnosis": "Diagnosis:",
        "nothing": "Diagnosis: nothing stands out.",
        "suggestion": "Suggestion: {text}",
        "sev_problem": "problem", "sev_warning": "warning", "sev_info": "info",
        # --- shared pieces
        "cell": "{input} in / {output} out / {load}",
        # --- concurrency_cap
        "concurrency_cap": "Requests queue: the server ran at most {cap} request{s} at once while "
                           "up to {waiting} waited ({how}).",
        "queue_from_metrics": "{metric} plateau at {cap}",
        "running_gauge_any": "the server's running-requests gauge",
        "queue_from_client_timeline": "inferred from the client's timeline: never more than "
                                      "{cap} requests were decoding at once while the client "
                                      "kept up to {load} in flight",
        "queue_from_timeline_and_gauge": "inferred from the client's timeline: never more "
                                         "than {cap} requests were decoding at once while the "
                                         "client kept up to {load} in flight, and {metric} "
                                         "never went above {cap}; no scrape caught a request "
                                         "waiting",
        "cap_share": " At concurrency {c}, {share} % of TTFT at {input} tokens was waiting "
                     "(queue time estimated as TTFT minus the 1-concurrent TTFT of {base}).",
        "cap_share_server": " At concurrency {c}, {share} % of TTFT at {input} tokens was "
                            "waiting (the server's own queue time, "
                            "vllm:request_queue_time_seconds, over {n} requests).",
        "cap_matches": " That matches the server's max-num-seqs={n}.",
        "concurrency_cap_possible": "Possibly a queue: at most {cap} request{s} ran at once "
                                    "while up to {waiting} waited ({how}).",
        "cap_evidence": " Evidence: {queue} of {scrapes} scrapes over {seconds} s showed it, in "
                        "{requests} requests.",
        "cap_below_limit": " That is below the server's own limit of {limit} at once, so it is "
                           "not that setting: prompts prefilled together, or a scheduler "
                           "running late on a busy machine, look like this.",
        "cap_too_little": " Too few scrapes show it to call it a cap.",
        "settle_cap": "Sweep concurrency {c} to settle it: a real cap keeps the running gauge "
                      "at {cap} there while more wait.",
        "raise_cap": "Raising {knob} lets more requests run at once but needs KV-cache memory: "
                     "{cost}; each request's decode also slows as the batch grows.",
        "cap_knob_any": "the server's limit on concurrent sequences (vLLM max-num-seqs, SGLang "
                        "max-running-requests, llama.cpp --parallel)",
        "knob": "{knob}",
        "knob_slots": "{knob} (slots)",
        "kv_full": "usage already peaks at {peak} %, so give the cache more memory too",
        "kv_room": "usage peaks at {peak} %, so there is some room",
        "kv_unknown": "check the KV-cache usage before raising it far",
        # --- kv_cache_pressure
        "kv_cache_pressure": "KV cache under pressure: {parts}.{cost}",
        "kv_and": " and ",
        "kv_usage": "usage peaked at {peak} %",
        "kv_preempted_part": "the server preempted {n} request{s} ({where})",
        "kv_where": "{n} in {cell}",
        "kv_preempted": " A preempted request loses its cache and recomputes its prefill later: "
                        "wasted GPU time and a latency spike for that request.",
        "kv_near_full": " The next long request may not fit: the server will then preempt or "
                        "queue it.",
        "kv_relief": "Run fewer sequences at once or cap the context ({context}): fewer "
                     "requests in flight means less throughput. Or give the cache more memory "
                     "by raising {memory}{now}: it leaves less for other processes "
                     "and too high a value fails at start-up.",
        "kv_now": " (now {value})",
        # --- prefill_slows_with_length
        "prefill_slows_with_length": "At 1 concurrent request, prefill slows with prompt length: "
                                     "{from_tps} tok/s at {from_tokens} tokens, {to_tps} at "
                                     "{to_tokens} ({change}): attention makes each later prompt "
                                     "token dearer.",
        "shorter_prompts": "Shorter prompts (trim context, retrieve less) prefill faster per "
                           "token.",
        # --- ttft_linear
        "ttft_linear": "TTFT grows about linearly with prompt length at 1 concurrent request: "
                       "{slope} per 1k tokens (r = {r}){fixed}; {ttft} at {tokens} tokens.",
        "ttft_fixed": ", plus about {fixed} fixed",
        # --- decode_slows_with_batch
        "decode_slows_with_batch": "Decode slows as more requests share the server: {rows}. "
                                   "This is not queueing: decode speed is measured after the "
                                   "first token, so waiting does not count; each decode step "
                                   "serves more sequences and carries other requests' prefill "
                                   "chunks.",
        "decode_row": "for {input}-token prompts it fell from {alone} tok/s alone to {under} "
                      "concurrent ({change})",
        "decode_at": "{tps} at {c}",
        "decode_cap": " With at most {cap} running, the batch stops growing there: further "
                      "slowdown comes from the prefills sharing the steps.",
        "fewer_at_once": "If each user's streaming speed matters more than total throughput, run "
                         "fewer requests at once; a smaller {budget} keeps prefill chunks from "
                         "stalling decodes, at the cost of slower prefill.",
        "budget_any": "per-step token budget (vLLM max-num-batched-tokens, SGLang "
                      "chunked-prefill-size, llama.cpp --ubatch-size)",
        # --- prefill_drop_under_concurrency
        "prefill_drop_under_concurrency": "Prefill tok/s per request (queueing included) falls "
                                          "as concurrency rises: {means} concurrent against 1 "
                                          "(mean over prompt lengths); worst {worst} for "
                                          "{input}-token prompts at {c}.",
        "prefill_at": "{change} at {c}",
        "prefill_cap": " Most of it is time spent waiting for a slot (see the concurrency cap).",
        "raise_budget": "A larger {budget} lets each step carry more prompt tokens, so prefill "
                        "under load can speed up; each decode step that carries them slows, and "
                        "requests waiting for a free slot gain nothing from it.",
        "kv_relief_fewer": "Run fewer sequences at once or cap the context ({context}): "
                           "fewer requests in flight means less throughput.",
        # --- token_count_mismatch
        "token_count_mismatch": "Prompt lengths missed their target: {n} request{s} in {cells} "
                                "cell{cs} had server-counted prompt tokens more than 2 % off "
                                "({detail}). Prefill rates for them are computed on the "
                                "server's count.",
        "mismatch_cell": "{n} of {count} in {cell}{served}",
        "mismatch_served": ", server counted {served} on average",
        "calibrate_prompts": "Use the server's /tokenize endpoint (or calibrate) so prompts hit "
                             "their length; a chat template adds tokens the target does not "
                             "count.",
        # --- client_bound
        "client_bound": "The benchmarking client itself was the bottleneck in {n} cell{s} "
                        "({parts}). Latencies there are unreliable: each timestamp may be late "
                        "by up to the loop lag, inflating TTFT and inter-token gaps by that much.",
        "client_cell": "{cell}: event loop late by up to {max} ms (p99 {p99} ms{share}), {cpu} % "
                       "of a core",
        "client_share": ", {share} % of the median gap between tokens",
        "client_others": " The client used little CPU itself, so other processes on this "
                         "machine held the CPU (a server running on the same machine does).",
        "split_client_load": "Split the load over client processes (--workers 2 or more), or "
                             "run the client on a faster machine.",
        "separate_client_machine": "Close what runs beside the client (other programs took the "
                                   "CPU it needed), run the client on another machine than the "
                                   "server, or leave the client a free core.",
        # --- failures
        "failures": "{failed} of {total} requests failed ({share} %): {parts}. Failed requests "
                    "are left out of every latency and throughput figure.",
        "count_of": "{n} {code}",
        "cell_counts": "{cell}: {counts}",
        "failure_hints": "{hints}",
        "hint": "{cls}: {hint}",
        "hint_timeout": "raise the first-byte timeout or send fewer requests at once",
        "hint_connect": "check the server is up and reachable",
        "hint_http_status": "the server refused requests (429/503 mean overload: lower the load)",
        "requests_resent": "The server closed a kept-alive connection under {n} of {total} "
                           "requests before answering ({parts}); each was sent once more on a "
                           "new connection and timed from that send, so no figure includes the "
                           "lost attempt.{engine}",
        "resent_llamacpp": " llama.cpp's server closes its connection after every streamed "
                           "reply, whatever its Keep-Alive header says: each request costs a "
                           "new connection.",
        "resent_cell": "{cell}: {n}",
        "hint_connection_closed": "the server closed connections before answering, new ones "
                                  "too (it may be overloaded, limit its connections, or not "
                                  "serve HTTP/1.1 at this address)",
        "hint_stream_cut": "the server ended streams before their end (a restart or crash, a "
                           "proxy's or load balancer's timeout, or the server cancelling "
                           "requests)",
        "hint_stream_cut_llamacpp-python": "llama-cpp-python's server cuts the running stream "
                                           "when a new request arrives: send one request at a "
                                           "time, or serve with llama.cpp's own server",
        "hint_malformed_stream": "the server's stream was not valid SSE/JSON, or passed a size, "
                                 "line or nesting limit (the message names the limit's error "
                                 "class)",
        "hint_no_usage": "token counts are the client's own: the server sent no usage",
        "hint_no_content": "the server completed streams without any content (choices null or "
                           "missing)",
        # --- goodput
        "goodput": "Goodput (requests meeting your TTFT and TPOT targets) stays at or above "
                   "{target} % {rows}.",
        "goodput_up_to": "up to concurrency {c} for {input}-token prompts ({goodput} %)",
        "goodput_none": "at no concurrency for {input}-token prompts (best {goodput} % at {c})",
        "goodput_capacity": "Loosen the targets, shorten the prompts, or serve this load with "
                            "more capacity.",
        # --- implausible_counts
        "implausible_counts": "The server reported numbers that cannot be true in {n} request{s}: "
                              "{what} ({parts}). Impossible counts were replaced by the client's "
                              "own (one token per content chunk); figures resting on a "
                              "disagreeing usage are doubtful.",
        "implausible_what": "{n} with {what}",
        "implausible_negative_usage": "negative token counts in usage",
        "implausible_absurd_usage": "token counts in usage above 10,000,000",
        "implausible_prompt_usage_beyond_sent": "a usage prompt count far above the prompt sent "
                                                "(the client's count used)",
        "implausible_usage_mismatch": "usage.completion_tokens more than 2x + 8 away from the "
                                      "content chunks streamed",
        "implausible_no_content": "streams that completed without any content",
        "check_usage_reporting": "Check the server's usage reporting (and its streaming format) "
                                 "before trusting its token counts.",
        # --- concurrency_not_kept
        "concurrency_not_kept": "The client kept fewer requests in flight than asked in {n} "
                                "cell{s} ({parts}): their latencies were measured at a lighter "
                                "load than their concurrency says.",
        "in_flight": "{cell}: {mean} in flight on average",
        "keep_concurrency": "Look for what delayed the sends: the client's own load (a "
                            "client-bound finding, or use --workers), a proxy or server "
                            "limiting connections, or requests failing at once.",
        # --- ray_clocks_uncertain
        "ray_clocks_uncertain": "The Ray actors' clocks are known only to within {error} ms"
                                "{worst}: {n} of {total} actor{s}{hosts} passed the "
                                "{tolerance} ms tolerance, their offsets measured to +/- "
                                "{uncertainty} ms and drifting up to {drift} ms between two "
                                "measurements in a row.{end}",
        "ray_worst_host": " (worst on {host})",
        "ray_hosts": " on {h} host{hs}",
        "ray_clocks_end_failed": " The last measurement, at the end of the run, failed: the "
                                 "drift during the last cell is not known.",
        "ray_clocks_end_only": "The Ray actors' clocks ({total} actor{s}{hosts}) could not be "
                               "measured at the end of the run: the drift during the last cell "
                               "is not known and may pass the {tolerance} ms tolerance.",
        "ray_clocks_why": " Each request's TTFT, inter-token gaps and decode speed are read on "
                          "one host's clock and are not affected. What carries the error is "
                          "where requests sit on the run's timeline, against other hosts' "
                          "requests and the server's /metrics: how many were in flight at "
                          "once, a concurrency cap read from the client's timeline, a cell's "
                          "wall time and output tok/s.",
        "ray_clocks_order": " Events on different hosts closer than {error} ms cannot be put in "
                            "order.",
        "ray_clocks_closer": "An offset is known to half the shortest of {round_trips} round "
                             "trips to its actor through Ray: a driver on the cluster's own "
                             "network (not a Ray Client link over a slow one) and quieter hosts "
                             "measure tighter; shorter cells leave the clocks less time to "
                             "drift, as the offsets are measured again before every cell.",
    },
    "zh": {
        "diagnosis": "诊断：",
        "nothing": "诊断：未发现明显问题。",
        "suggestion": "建议：{text}",
        "sev_problem": "问题", "sev_warning": "警告", "sev_info": "提示",
        "cell": "输入 {input} / 输出 {output} / {load}",
        "concurrency_cap": "请求在排队：服务端最多只同时运行 {cap} 个请求，另有最多 {waiting} 个"
                           "请求在等待（{how}）。",
        "queue_from_metrics": "{metric} 稳定在 {cap}",
        "running_gauge_any": "服务端的运行中请求数指标",
        "queue_from_client_timeline": "根据客户端时间线推断：客户端最多保持 {load} 个请求在途，"
                                      "而同时处于 Decode 阶段的请求从未超过 {cap} 个",
        "queue_from_timeline_and_gauge": "根据客户端时间线推断：客户端最多保持 {load} 个请求在途，"
                                         "而同时处于 Decode 阶段的请求从未超过 {cap} 个，"
                                         "{metric} 也从未超过 {cap}；没有一次采样恰好看到请求在等待",
        "cap_share": "在并发 {c} 下，{input} token 提示的 TTFT 中有 {share} % 是排队等待（排队时间"
                     "按 TTFT 减去单并发 TTFT {base} 估算）。",
        "cap_share_server": "在并发 {c} 下，{input} token 提示的 TTFT 中有 {share} % 是排队等待"
                            "（服务端自身统计的排队时间 vllm:request_queue_time_seconds，共 {n} "
                            "个请求）。",
        "cap_matches": "这与服务端的 max-num-seqs={n} 一致。",
        "concurrency_cap_possible": "可能存在排队：最多只有 {cap} 个请求同时运行，另有最多 "
                                    "{waiting} 个请求在等待（{how}）。",
        "cap_evidence": "依据：{seconds} 秒内 {scrapes} 次采样中有 {queue} 次显示此情况，涉及 "
                        "{requests} 个请求。",
        "cap_below_limit": "这低于服务端自身 {limit} 个的上限，因此不是该参数所致：多个提示一起"
                           "做 Prefill，或繁忙机器上调度器滞后，都会呈现这种情况。",
        "cap_too_little": "显示此情况的采样太少，不能据此认定存在上限。",
        "settle_cap": "用并发 {c} 再测一次即可确认：若确有上限，运行中请求数会停在 {cap}，"
                      "同时有更多请求等待。",
        "raise_cap": "调大{knob}可让更多请求同时运行，但需要更多 KV 缓存显存：{cost}；此外，"
                     "批次变大后每个请求的 Decode 也会变慢。",
        "cap_knob_any": "服务端的并发序列数上限（vLLM 的 max-num-seqs、SGLang 的 "
                        "max-running-requests、llama.cpp 的 --parallel）",
        "knob": " {knob} ",
        "knob_slots": " {knob}（槽位数）",
        "kv_full": "其使用率峰值已达 {peak} %，因此还需同时给缓存分配更多显存",
        "kv_room": "其使用率峰值为 {peak} %，尚有一定余量",
        "kv_unknown": "大幅调高之前请先查看 KV 缓存使用率",
        "kv_cache_pressure": "KV 缓存压力大：{parts}。{cost}",
        "kv_and": "，且",
        "kv_usage": "使用率峰值达 {peak} %",
        "kv_preempted_part": "服务端抢占了 {n} 个请求（{where}）",
        "kv_where": "{cell}：{n} 个",
        "kv_preempted": "被抢占的请求会丢失其 KV 缓存，之后须重新计算 Prefill：既浪费 GPU 时间，"
                        "也会使该请求的延迟陡增。",
        "kv_near_full": "下一个长请求可能放不下：届时服务端会抢占它或让它排队。",
        "kv_relief": "减少同时运行的序列数，或限制上下文长度（{context}）：在途请求变少，"
                     "吞吐也会随之下降。也可以调高 {memory}{now}，给缓存更多显存："
                     "留给其他进程的显存会变少，设得过高还会导致启动失败。",
        "kv_now": "（当前为 {value}）",
        "prefill_slows_with_length": "单并发下，Prefill 速度随提示长度增加而下降：{from_tokens} "
                                     "token 时为 {from_tps} tok/s，{to_tokens} token 时为 "
                                     "{to_tps} tok/s（{change}）：注意力计算使越靠后的提示 token "
                                     "代价越高。",
        "shorter_prompts": "缩短提示（精简上下文、减少检索内容）可提高每个 token 的 Prefill 速度。",
        "ttft_linear": "单并发下，TTFT 随提示长度大致线性增长：每 1k token 约 {slope}"
                       "（r = {r}）{fixed}；{tokens} token 时为 {ttft}。",
        "ttft_fixed": "，另有约 {fixed} 的固定开销",
        "decode_slows_with_batch": "更多请求共享服务端时，Decode 变慢：{rows}。这不是排队造成的："
                                   "Decode 速度从第一个 token 之后才开始计算，等待时间不计入；"
                                   "变慢是因为每个 Decode 步要服务更多序列，还要捎带其他请求的"
                                   "Prefill 分块。",
        "decode_row": "{input} token 提示单独运行时为 {alone} tok/s，{under}（{change}）",
        "decode_at": "并发 {c} 时降到 {tps}",
        "decode_cap": "由于最多只有 {cap} 个请求同时运行，批次在此不再增大：进一步的变慢来自"
                      "共享 Decode 步的 Prefill。",
        "fewer_at_once": "如果每个用户的流式输出速度比总吞吐更重要，就减少同时运行的请求；调小"
                         "{budget}可避免 Prefill 分块拖慢 Decode，代价是 Prefill 变慢。",
        "budget_any": "每步 token 预算（vLLM 的 max-num-batched-tokens、SGLang 的 "
                      "chunked-prefill-size、llama.cpp 的 --ubatch-size）",
        "prefill_drop_under_concurrency": "单请求 Prefill tok/s（含排队时间）随并发升高而下降："
                                          "相对单并发，{means}（各提示长度的平均值）；最差为 "
                                          "{input} token 提示在并发 {c} 下的 {worst}。",
        "prefill_at": "并发 {c} 时 {change}",
        "prefill_cap": "其中大部分是等待空闲槽位的时间（见并发上限）。",
        "raise_budget": "调大{budget}可让每步携带更多提示 token，负载下的 Prefill 可能因此变快；"
                        "但携带这些 token 的每个 Decode 步都会变慢，而等待空闲槽位的请求不会因此"
                        "受益。",
        "kv_relief_fewer": "减少同时运行的序列数，或限制上下文长度（{context}）：在途请求变少，"
                           "吞吐也会随之下降。",
        "token_count_mismatch": "提示长度未达目标：{cells} 个单元中有 {n} 个请求的服务端统计提示 "
                                "token 数与目标相差超过 2 %（{detail}）。这些请求的 Prefill 速率"
                                "按服务端的计数计算。",
        "mismatch_cell": "{cell}：{count} 个中 {n} 个{served}",
        "mismatch_served": "，服务端平均计为 {served}",
        "calibrate_prompts": "使用服务端的 /tokenize 接口（或先做校准），使提示达到目标长度；"
                             "对话模板会额外加入目标长度未计入的 token。",
        "client_bound": "压测客户端自身在 {n} 个单元中成为瓶颈（{parts}）。这些单元的延迟不可靠："
                        "每个时间戳最多可能晚一个事件循环延迟，TTFT 和 token 间隔会因此虚高"
                        "同样的量。",
        "client_cell": "{cell}：事件循环最多延迟 {max} ms（p99 {p99} ms{share}），占用单核 "
                       "{cpu} %",
        "client_share": "，为 token 间隔中位数的 {share} %",
        "client_others": "客户端自身占用的 CPU 很少，说明是本机其他进程占用了 CPU（与客户端同机"
                         "运行的服务端就会这样）。",
        "split_client_load": "把负载分摊到多个客户端进程（--workers 2 或更多），或在更快的"
                             "机器上运行客户端。",
        "separate_client_machine": "关闭与客户端同时运行的其他程序（它们占用了客户端所需的 "
                                   "CPU），让客户端与服务端运行在不同的机器上，或给客户端留出"
                                   "一个空闲的 CPU 核。",
        "failures": "{total} 个请求中有 {failed} 个失败（{share} %）：{parts}。失败的请求不计入"
                    "任何延迟和吞吐指标。",
        "count_of": "{code} {n} 个",
        "cell_counts": "{cell}：{counts}",
        "failure_hints": "{hints}",
        "hint": "{cls}：{hint}",
        "hint_timeout": "调大首字节超时，或减少同时发送的请求",
        "hint_connect": "检查服务端是否已启动且可以访问",
        "hint_http_status": "服务端拒绝了请求（429/503 表示过载：请降低负载）",
        "requests_resent": "服务端在应答前关闭了保持连接（keep-alive），涉及 {total} 个请求中的 "
                           "{n} 个（{parts}）；每个请求都已在新连接上重发一次，并从重发时刻起计时，"
                           "因此所有指标都不含失败的那次尝试。{engine}",
        "resent_llamacpp": "llama.cpp 的服务端无论 Keep-Alive 头如何声明，每次流式应答后都会关闭"
                           "连接：每个请求都要新建一次连接。",
        "resent_cell": "{cell}：{n}",
        "hint_connection_closed": "服务端在应答前关闭了连接，新建的连接也是如此（可能已过载、"
                                  "限制了连接数，或此地址并非 HTTP/1.1 服务）",
        "hint_stream_cut": "服务端在流式响应结束前将其中断（重启或崩溃、代理或负载均衡器超时，"
                           "或服务端取消了请求）",
        "hint_stream_cut_llamacpp-python": "llama-cpp-python 的服务端在新请求到达时会中断正在进行"
                                           "的流：请一次只发一个请求，或改用 llama.cpp 自带的服务端",
        "hint_malformed_stream": "服务端的流不是有效的 SSE/JSON，或超出了大小、行长或嵌套深度"
                                 "限制（错误信息中给出了该限制的错误类型）",
        "hint_no_usage": "token 数为客户端自行统计：服务端没有返回 usage",
        "hint_no_content": "服务端结束了流式响应，却没有返回任何内容（choices 为 null 或缺失）",
        "goodput": "有效吞吐（goodput，即同时满足 TTFT 和 TPOT 目标的请求占比）保持在 "
                   "{target} % 及以上的负载：{rows}。",
        "goodput_up_to": "{input} token 提示最高到并发 {c}（{goodput} %）",
        "goodput_none": "{input} token 提示在任何并发下都达不到（最高为并发 {c} 时的 "
                        "{goodput} %）",
        "goodput_capacity": "放宽目标、缩短提示，或用更多算力承载这一负载。",
        "implausible_counts": "服务端在 {n} 个请求中报告了不可能成立的数值：{what}（{parts}）。"
                              "不可能的计数已替换为客户端自己的统计（每个内容块计一个 "
                              "token）；依赖不一致 usage 的指标均值得怀疑。",
        "implausible_what": "{what}：{n} 个",
        "implausible_negative_usage": "usage 中的 token 数为负",
        "implausible_absurd_usage": "usage 中的 token 数超过 10,000,000",
        "implausible_prompt_usage_beyond_sent": "usage 中的提示 token 数远超实际发送的提示（已改用客户端计数）",
        "implausible_usage_mismatch": "usage.completion_tokens 与流式返回的内容块数相差超过 "
                                      "2 倍 + 8",
        "implausible_no_content": "流式响应结束时没有任何内容",
        "check_usage_reporting": "在信任服务端的 token 计数之前，先检查它的 usage 上报（以及流式"
                                 "格式）。",
        "concurrency_not_kept": "在 {n} 个单元中，客户端保持在途的请求少于设定的并发（{parts}）："
                                "这些单元的延迟是在比其并发标称更轻的负载下测得的。",
        "in_flight": "{cell}：平均在途 {mean} 个",
        "keep_concurrency": "查找推迟发送的原因：客户端自身的负载（见客户端成为瓶颈的诊断，或使用 "
                            "--workers）、限制连接数的代理或服务端，或立即失败的请求。",
        "ray_clocks_uncertain": "Ray actor 的时钟只能确定到 {error} ms 以内{worst}：{total} 个 "
                                "actor 中有 {n} 个超出 {tolerance} ms 的容差{hosts}，其时钟偏移"
                                "的测量误差达 +/- {uncertainty} ms，相邻两次测量之间漂移达 "
                                "{drift} ms。{end}",
        "ray_worst_host": "（最差的在 {host}）",
        "ray_hosts": "，分布在 {h} 台主机上",
        "ray_clocks_end_failed": "运行结束时的最后一次测量失败：最后一个单元期间的漂移未知。",
        "ray_clocks_end_only": "运行结束时未能测量 Ray actor 的时钟（共 {total} 个 actor"
                               "{hosts}）：最后一个单元期间的漂移未知，可能超过 {tolerance} ms "
                               "的容差。",
        "ray_clocks_why": "每个请求的 TTFT、token 间隔和 Decode 速度都在同一台主机的时钟上读取，"
                          "不受影响。受影响的是请求在本次运行时间线上的位置，即相对于其他主机的"
                          "请求和服务端 /metrics 的位置：同时在途的请求数、根据客户端时间线推断"
                          "的并发上限、单元的总耗时和输出 tok/s。",
        "ray_clocks_order": "不同主机上相隔不到 {error} ms 的事件无法判断先后。",
        "ray_clocks_closer": "时钟偏移的精度是经 Ray 与该 actor 往返 {round_trips} 次中最短一次"
                             "耗时的一半：驱动进程位于集群自身的网络内（而不是经慢速链路连接的 "
                             "Ray Client）、主机负载较轻时测得更准；单元越短，时钟可漂移的时间"
                             "越少，因为每个单元开始前都会重新测量偏移。",
    },
}
WORDS = {lang: {**SHARED_WORDS[lang], **_FINDING_WORDS[lang], **EFFECT_WORDS[lang]}
         for lang in LANGS}


def _w(lang: str, key: str, /, **values) -> str:
    return lookup(WORDS, lang, key, **values)


# --- numbers, as every language writes them ---------------------------------------------------

def _pct(fraction: float) -> str:
    return f"{fraction * 100:+.0f} %"


def _pct0(fraction: float) -> str:
    return f"{fraction * 100:.0f}"


def _tps(x: float) -> str:
    return f"{x:.1f}" if x < 100 else f"{x:.0f}"


def _secs(x: float) -> str:
    return f"{x:.1f} s" if abs(x) >= 1 else f"{x * 1000:.0f} ms"


def cell_text(cell: dict, lang: str = "en") -> str:
    """A cell's shape ({"input_tokens", "output_tokens", "concurrency", "request_rate"}) as a
    finding quotes it: "512 in / 64 out / c=4"."""
    load = load_text(cell.get("concurrency"), cell.get("request_rate"), lang)
    return _w(lang, "cell", input=cell.get("input_tokens"), output=cell.get("output_tokens"),
              load=load)


def _counts(lang: str, counts: dict) -> str:
    return _w(lang, "list").join(_w(lang, "count_of", n=n, code=code)
                                 for code, n in counts.items())


def _cell_counts(lang: str, cells: list, key: str) -> str:
    return _w(lang, "sep").join(_w(lang, "cell_counts", cell=cell_text(c["cell"], lang),
                                   counts=_counts(lang, c[key])) for c in cells)


def _knob(lang: str, knob: str | None, generic: str) -> str:
    if knob is None:
        return _w(lang, generic)
    return _w(lang, "knob_slots" if knob == "--parallel" else "knob", knob=knob)


# --- each finding's sentences -----------------------------------------------------------------

def _concurrency_cap(lang: str, p: dict) -> str:
    cap = p["cap"]
    how = _w(lang, p["how"], cap=cap, load=p.get("max_client_concurrency"),
             metric=p.get("metric") or _w(lang, "running_gauge_any"))
    possible = p.get("strength") == "possible"
    out = _w(lang, "concurrency_cap_possible" if possible else "concurrency_cap", cap=cap,
             s=_s(cap), waiting=p["max_waiting"], how=how)
    rests = p.get("evidence") or {}
    if rests.get("scrapes"):
        out += _w(lang, "cap_evidence", queue=rests["queue_scrapes"], scrapes=rests["scrapes"],
                  seconds=f"{rests['seconds']:.1f}", requests=rests["requests"])
    if possible and p.get("below_limit") is not None:
        return out + _w(lang, "cap_below_limit", limit=p["below_limit"])
    if possible:
        return out + _w(lang, "cap_too_little")
    share = p.get("queue_share")
    if share and share.get("estimate") == "server_queue_time":
        out += _w(lang, "cap_share_server", c=share["concurrency"], share=_pct0(share["share"]),
                  input=share["input_tokens"], n=share.get("requests") or 0)
    elif share and share.get("baseline_ttft_s") is not None:
        out += _w(lang, "cap_share", c=share["concurrency"], share=_pct0(share["share"]),
                  input=share["input_tokens"], base=_secs(share["baseline_ttft_s"]))
    if p.get("matches_max_num_seqs") is not None:
        out += _w(lang, "cap_matches", n=p["matches_max_num_seqs"])
    return out


def _raise_cap(lang: str, p: dict) -> str:
    peak = p.get("kv_cache_peak")
    cost = _w(lang, p["kv_cost"], peak=None if peak is None else _pct0(peak))
    return _w(lang, "raise_cap", knob=_knob(lang, p.get("knob"), "cap_knob_any"), cost=cost)


def _kv_cache_pressure(lang: str, p: dict) -> str:
    parts = []
    if p.get("kv_cache_peak") is not None:
        parts.append(_w(lang, "kv_usage", peak=_pct0(p["kv_cache_peak"])))
    if p.get("preempted_cells"):
        n = p["preemptions"]
        where = _w(lang, "list").join(_w(lang, "kv_where", n=c["n"],
                                         cell=cell_text(c["cell"], lang))
                                      for c in p["preempted_cells"])
        parts.append(_w(lang, "kv_preempted_part", n=n, s=_s(n), where=where))
    return _w(lang, "kv_cache_pressure", parts=_w(lang, "kv_and").join(parts),
              cost=_w(lang, p["cost"]))


def _kv_knobs(p: dict) -> dict:
    # A run diagnosed before the engine's own names were kept gets vLLM's, as it did then; a
    # stored name is quoted only when it looks like one.
    def name(key: str, default: str) -> str:
        v = p.get(key)
        return v if isinstance(v, str) and 0 < len(v) <= 40 else default

    return {"memory": name("memory_knob", "gpu-memory-utilization"),
            "context": name("context_knob", "max-model-len")}


def _kv_relief(lang: str, p: dict) -> str:
    gmu = p.get("gpu_memory_utilization")
    now = _w(lang, "kv_now", value=gmu) if gmu is not None else ""
    return _w(lang, "kv_relief", now=now, **_kv_knobs(p))


def _prefill_slows_with_length(lang: str, p: dict) -> str:
    return _w(lang, "prefill_slows_with_length", from_tps=_tps(p["from_tps"]),
              from_tokens=p["from_tokens"], to_tps=_tps(p["to_tps"]), to_tokens=p["to_tokens"],
              change=_pct(p["change"]))


def _ttft_linear(lang: str, p: dict) -> str:
    fixed = (_w(lang, "ttft_fixed", fixed=_secs(p["fixed_s"]))
             if p.get("fixed_s") is not None else "")
    return _w(lang, "ttft_linear", slope=_secs(p["slope_s_per_1k_tokens"]),
              r=f"{p['pearson_r']:.3f}", fixed=fixed, ttft=_secs(p["longest_ttft_s"]),
              tokens=p["longest_tokens"])


def _decode_slows_with_batch(lang: str, p: dict) -> str:
    rows = _w(lang, "sep").join(
        _w(lang, "decode_row", input=r["input_tokens"], alone=_tps(r["alone_tps"]),
           under=_w(lang, "list").join(_w(lang, "decode_at", tps=_tps(v), c=c)
                                       for c, v in r["under"]),
           change=_pct(r["change"]))
        for r in p["rows"])
    out = _w(lang, "decode_slows_with_batch", rows=rows)
    if p.get("cap") is not None:
        out += _w(lang, "decode_cap", cap=p["cap"])
    return out


def _fewer_at_once(lang: str, p: dict) -> str:
    return _w(lang, "fewer_at_once", budget=_knob(lang, p.get("budget_knob"), "budget_any"))


def _raise_budget(lang: str, p: dict) -> str:
    return _w(lang, "raise_budget", budget=_knob(lang, p.get("budget_knob"), "budget_any"))


def _prefill_drop(lang: str, p: dict) -> str:
    means = _w(lang, "list").join(_w(lang, "prefill_at", change=_pct(m), c=c)
                                  for c, m in p["mean_change_by_concurrency"])
    out = _w(lang, "prefill_drop_under_concurrency", means=means,
             worst=_pct(p["worst_change"]), input=p["worst_input_tokens"],
             c=p["worst_concurrency"])
    if p.get("capped"):
        out += _w(lang, "prefill_cap")
    return out


def _token_count_mismatch(lang: str, p: dict) -> str:
    detail = _w(lang, "sep").join(
        _w(lang, "mismatch_cell", n=d["mismatches"], count=d["requests"],
           cell=cell_text(d["cell"], lang),
           served=(_w(lang, "mismatch_served", served=f"{d['served_mean']:.0f}")
                   if d.get("served_mean") is not None else ""))
        for d in p["detail"])
    n, cells = p["requests"], p["cells"]
    return _w(lang, "token_count_mismatch", n=n, s=_s(n), cells=cells, cs=_s(cells),
              detail=detail)


def _requests_resent(lang: str, p: dict) -> str:
    parts = _w(lang, "sep").join(_w(lang, "resent_cell", cell=cell_text(c["cell"], lang),
                                    n=c["resent"]) for c in p["cells"])
    engine = _w(lang, "resent_llamacpp") if p.get("engine") == "llamacpp" else ""
    return _w(lang, "requests_resent", n=p["resent"], total=p["requests"], parts=parts,
              engine=engine)


def _client_bound(lang: str, p: dict) -> str:
    parts = _w(lang, "sep").join(
        _w(lang, "client_cell", cell=cell_text(c["cell"], lang),
           max=f"{c['loop_lag_max_ms']:.0f}", p99=f"{c['loop_lag_p99_ms']:.0f}",
           cpu=f"{c['cpu_percent']:.0f}",
           share=(_w(lang, "client_share", share=_pct0(c["lag_share_of_itl"]))
                  if c.get("lag_share_of_itl") else ""))
        for c in p["cells"])
    n = len(p["cells"])
    out = _w(lang, "client_bound", n=n, s=_s(n), parts=parts)
    if p.get("other_processes"):
        out += _w(lang, "client_others")
    return out


def _failures(lang: str, p: dict) -> str:
    return _w(lang, "failures", failed=p["failed"], total=p["requests"],
              share=_pct0(p["share"]), parts=_cell_counts(lang, p["cells"], "by_class"))


def _failure_hints(lang: str, p: dict) -> str:
    own = set(p.get("engine_hints") or ())
    return _w(lang, "failure_hints", hints=_w(lang, "sep").join(
        _w(lang, "hint", cls=cls, hint=_w(lang, f"hint_{cls}_{p['engine']}" if cls in own
                                             else f"hint_{cls}"))
        for cls in p["hint_classes"]))


def _goodput(lang: str, p: dict) -> str:
    rows = []
    for r in p["rows"]:
        if r.get("best_concurrency") is not None:
            rows.append(_w(lang, "goodput_up_to", c=r["best_concurrency"],
                           input=r["input_tokens"], goodput=_pct0(r["goodput"])))
        else:
            rows.append(_w(lang, "goodput_none", c=r["top_concurrency"],
                           input=r["input_tokens"], goodput=_pct0(r["goodput"])))
    return _w(lang, "goodput", target=_pct0(p["target"]), rows=_w(lang, "sep").join(rows))


def _implausible(lang: str, p: dict) -> str:
    table = WORDS.get(lang, WORDS["en"])
    what = _w(lang, "sep").join(
        _w(lang, "implausible_what", n=n,
           what=_w(lang, f"implausible_{code}") if f"implausible_{code}" in table else code)
        for code, n in p["by_code"].items())
    n = p["requests"]
    return _w(lang, "implausible_counts", n=n, s=_s(n), what=what,
              parts=_cell_counts(lang, p["cells"], "by_code"))


def _concurrency_not_kept(lang: str, p: dict) -> str:
    parts = _w(lang, "sep").join(
        _w(lang, "in_flight", cell=cell_text(c["cell"], lang), mean=f"{c['mean_in_flight']:.1f}")
        for c in p["cells"])
    n = len(p["cells"])
    return _w(lang, "concurrency_not_kept", n=n, s=_s(n), parts=parts)


def _ms(x: float) -> str:
    return f"{float(x):.1f}"


def _ray_clocks_uncertain(lang: str, p: dict) -> str:
    h, total = int(p.get("hosts") or 0), int(p["actors_total"])
    if p.get("error_ms") is None:  # within the tolerance; only the end's measurement failed
        h = int(p.get("hosts_total") or 0)
        hosts = _w(lang, "ray_hosts", h=h, hs=_s(h)) if h else ""
        return (_w(lang, "ray_clocks_end_only", total=total, s=_s(total), hosts=hosts,
                   tolerance=_ms(p["tolerance_ms"])) + _w(lang, "ray_clocks_why"))
    hosts = _w(lang, "ray_hosts", h=h, hs=_s(h)) if h else ""
    worst = _w(lang, "ray_worst_host", host=p["worst_host"]) if p.get("worst_host") else ""
    end = _w(lang, "ray_clocks_end_failed") if p.get("end_failed") else ""
    return (_w(lang, "ray_clocks_uncertain", error=_ms(p["error_ms"]), worst=worst,
               n=int(p["actors"]), total=total, s=_s(total), hosts=hosts,
               tolerance=_ms(p["tolerance_ms"]), uncertainty=_ms(p["uncertainty_ms"]),
               drift=_ms(p["drift_ms"]), end=end)
            + _w(lang, "ray_clocks_why") + _w(lang, "ray_clocks_order", error=_ms(p["error_ms"])))


def _ray_clocks_closer(lang: str, p: dict) -> str:
    return _w(lang, "ray_clocks_closer", round_trips=int(p["round_trips"]))


_FINDINGS: dict[str, Callable[[str, dict], str]] = {
    "concurrency_cap": _concurrency_cap,
    "kv_cache_pressure": _kv_cache_pressure,
    "prefill_slows_with_length": _prefill_slows_with_length,
    "ttft_linear": _ttft_linear,
    "decode_slows_with_batch": _decode_slows_with_batch,
    "prefill_drop_under_concurrency": _prefill_drop,
    "token_count_mismatch": _token_count_mismatch,
    "client_bound": _client_bound,
    "failures": _failures,
    "goodput": _goodput,
    "implausible_counts": _implausible,
    "concurrency_not_kept": _concurrency_not_kept,
    "ray_clocks_uncertain": _ray_clocks_uncertain,
    "requests_resent": _requests_resent,
}
_SUGGESTIONS: dict[str, Callable[[str, dict], str]] = {
    "raise_cap": _raise_cap,
    "settle_cap": lambda lang, p: _w(lang, "settle_cap", c=p.get("settle_concurrency"),
                                     cap=p["cap"]),
    "kv_relief": _kv_relief,
    "fewer_at_once": _fewer_at_once,
    "raise_budget": _raise_budget,
    "failure_hints": _failure_hints,
    "ray_clocks_closer": _ray_clocks_closer,
}


# --- the public functions -----------------------------------------------------------------------

def is_stored_text(finding) -> bool:
    """Whether `finding` was kept as English text (a run diagnosed before #12): no values to
    render, a stored `message` to show as it is."""
    return not finding.params and bool(finding.message)


def finding_text(finding, lang: str = "en") -> str:
    """A `Finding` as sentences in `lang` ("en" or "zh"); a finding kept as English text
    before #12 (or one the words cannot render) shows its stored message, else its code."""
    if not is_stored_text(finding):
        render = _FINDINGS.get(finding.code)
        if render is not None:
            try:
                return render(lang, finding.params)
            except (KeyError, TypeError, ValueError, IndexError):
                pass  # values of a shape these words do not know: the stored text, if any
    return finding.message or finding.code


def suggestion_text(finding, lang: str = "en") -> str | None:
    """What the finding suggests changing, with its cost, in `lang`, followed by its effect
    as the model fitted to the run predicts it (`suggestion_parts`); None without one. A
    finding kept as English text before #12 shows its stored suggestion."""
    suggestion, effect = suggestion_parts(finding, lang)
    if effect is None:
        return suggestion
    return suggestion + _w(lang, "eff_join") + effect if suggestion else effect


def suggestion_parts(finding, lang: str = "en") -> tuple[str | None, str | None]:
    """(the suggestion, its predicted effect) in `lang`. The effect is None when the run has
    no prediction (`core.throughput.effects`); when the model predicts the suggestion gains
    nothing at any prompt length, the suggestion is the sentence saying so and why (a KV
    relief keeps its advice to run fewer sequences), and the effect None."""
    suggestion = _suggestion(finding, lang)
    effect = effect_of(finding, lang) if suggestion is not None else None
    if effect is None:
        return suggestion, None
    text, withdrawn = effect
    if not withdrawn:
        return suggestion, text
    if finding.suggestion_code == "kv_relief":
        return (_w(lang, "kv_relief_fewer", context=_kv_knobs(finding.params)["context"])
                + _w(lang, "eff_join") + text, None)
    return text, None


def effect_text(finding, lang: str = "en") -> str | None:
    """The predicted effect of the finding's suggestion in `lang` (withdrawn or not), or None
    when the run has none."""
    effect = effect_of(finding, lang)
    return None if effect is None else effect[0]


def _suggestion(finding, lang: str) -> str | None:
    code = finding.suggestion_code
    if code is not None and not is_stored_text(finding):
        render = _SUGGESTIONS.get(code)
        try:
            return render(lang, finding.params) if render else _w(lang, code)
        except (KeyError, TypeError, ValueError, IndexError):
            pass
    return finding.suggestion


def severity_text(severity: str, lang: str = "en") -> str:
    """"problem", "warning" or "info" in `lang` (an unknown severity as it is)."""
    key = f"sev_{severity}"
    return _w(lang, key) if key in WORDS["en"] else severity


def findings_text(findings: Sequence, lang: str = "en") -> str:
    """The diagnosis as numbered paragraphs, as `throughline throughput` prints it."""
    if not findings:
        return _w(lang, "nothing")
    lines = [_w(lang, "diagnosis")]
    for n, f in enumerate(findings, 1):
        lines.append(f"{n}. [{severity_text(f.severity, lang)}] {finding_text(f, lang)}")
        suggestion = suggestion_text(f, lang)
        if suggestion:
            lines.append("   " + _w(lang, "suggestion", text=suggestion))
    return "\n".join(lines)

