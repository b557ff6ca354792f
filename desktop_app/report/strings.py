"""Every word the comparison PDF prints, in English and Chinese: one dict per language, and
the glossary of metric names (`TERMS`, `term`, `definition`; docs/GLOSSARY.md is written from
it by `glossary_markdown`).

`text(lang, key, **values)` formats one entry. Diagnosis findings and the judges' findings are
produced by the core in English and are quoted as they are (the zh report says so).
"""

from __future__ import annotations

from desktop_app.core.metrics import DEFINITIONS

LANGS = ("en", "zh")

# A CJK-capable family first for Chinese; Qt falls back along the list for other scripts.
FONT_FAMILIES = {"en": ["DejaVu Sans", "WenQuanYi Micro Hei"],
                 "zh": ["WenQuanYi Micro Hei", "DejaVu Sans"]}

EN = {
    "title": "Comparison summary",
    "subtitle": "{n} runs compared, generated {when} UTC",
    "cover": "What was compared",
    "col_run": "Run", "col_kind": "Kind", "col_name": "Name", "col_endpoint": "Endpoint",
    "col_model": "Model", "col_engine": "Engine", "col_status": "Status",
    "col_started": "Started (UTC)",
    "kind_throughput": "throughput", "kind_sql": "SQL evaluation",
    "settings": "The runs: notes, configuration and server settings",
    "run_note": "Note",
    "run_config_tp": "Sweep",
    "run_config_sql": "Evaluation",
    "settings_server": "Server settings read from the server",
    "settings_user": "Server settings entered by the user",
    "settings_none": "Server settings: not recorded with this run",
    "settings_contradicted": "{name} = {value} (the server reported {server})",
    "cfg_lengths": "prompt lengths {v} tokens",
    "cfg_output": "output {v} tokens",
    "cfg_concurrency": "concurrency {v}",
    "cfg_rates": "open loop at {v} requests/s",
    "cfg_requests": "{n} requests per cell",
    "cfg_requests_default": "max(4 × concurrency, 8) requests per cell",
    "cfg_warmup": "{n} warm-up requests",
    "cfg_budget": "at most {v} per cell",
    "cfg_same_prompts": "the same prompt for every request of a length (prefix cache can hit)",
    "cfg_no_metrics": "/metrics not scraped",
    "cfg_temperature": "temperature {v}",
    "cfg_ignore_eos": "ignore_eos {v}",
    "cfg_goodput": "goodput targets: {v}",
    "cfg_imported": "imported from {tool}: {file}",
    "cfg_missing": "not in the file: {v}",
    "cfg_questions": "question set {v}",
    "cfg_tiers": "tiers {v}",
    "cfg_ids": "questions {v}",
    "cfg_judges": "judges {v}",
    "cfg_tolerance": "numeric tolerance {v}",
    "cfg_ignore_names": "column names not compared",
    "cfg_strategies": "strategies {v}",
    "cfg_steps": "at most {n} steps",
    "cfg_max_tokens": "at most {n} tokens",
    "cfg_time_limit": "at most {v} per question",
    "cfg_sql_concurrency": "{n} questions at once",
    "cfg_epochs": "{n} epochs",
    "cfg_language": "questions in {v}",
    "cfg_tool_mode": "tool calls: {v}",
    "cfg_retries": "{n} retries of a failed call",
    "lang_en": "English", "lang_zh": "Chinese",
    "tool_native": "native", "tool_text": "in the text",
    "differs": "What differs between these runs",
    "differs_intro": "The server settings recorded with the runs that are not the same in every "
                     "run, named as the engine spells them (vLLM's names). Values marked "
                     "(user) were entered by the user; the others were read from the server.",
    "differs_same": "The recorded server settings are identical in every run.",
    "differs_none": "No run recorded server settings, so none can be compared.",
    "col_setting": "Setting",
    "not_recorded": "not recorded",
    "mark_user": "(user)",
    "n_obs": "n = {n}",
    "status_completed": "completed", "status_cancelled": "cancelled", "status_failed": "failed",
    "status_running": "running", "status_interrupted": "interrupted",
    "unfinished": "{n} unfinished, not counted",
    "epochs_spread": "{lo}-{hi} over {n} epochs",
    "judges": "Judge definitions",
    "judge_strict": "strict (the reference harness's): row count, column count, column names "
                    "(case-sensitive) and the first row must all match, compared as text.",
    "judge_tolerant": "tolerant: strict's checks (row count, column count, column names "
                      "ignoring case, the first row) with numbers first rounded as the question "
                      "asks, then equal within the tolerance ({tol}); 3 equals 3.0. An answer "
                      "that passes strict passes tolerant.",
    "judge_full": "full: every row as a multiset, order checked only when the question asks "
                  "for one, the same rounding then tolerance; column names optional. Results "
                  "over the sandbox's 10,000 rows are read whole; when a question accepts "
                  "several answers, matching any one passes.",
    "simulated": "Simulated: runs against Throughline's built-in simulator or a scripted "
                 "persona. These figures describe the harness, never a model.",
    "notes": "Notes",
    "note_kind_left_out": "run #{run} is a {kind} run: no section reads that kind, it is left out",
    "note_replay_unused": "run #{run} is a replay whose server no compared sweep measured: it "
                          "is left out (a replay is read beside a sweep of its server)",
    "compare_error_too_few": "a comparison needs at least two different runs, got {n}",
    "compare_error_no_run": "no run {ids} in {path}",
    "note_sql_without_sweep": "SQL run #{run} ({model} at {target}) has no throughput run of the "
                              "same endpoint and model here",
    "note_sweep_without_sql": "throughput run #{run} ({model} at {target}) has no SQL run of the "
                              "same endpoint and model here, so no capacity in tasks",
    "table": "Side by side",
    "table_tp": "Speed (throughput runs)",
    "table_sql": "Quality (SQL evaluation runs)",
    "table_intro": "One row per dimension, one column per run: each value with its 95 % "
                   "interval [low – high] and n, the requests (or questions) behind it. The "
                   "last column names a winner only when the difference is outside the noise "
                   "(the appendix says how); a client-bound value is marked, its interval "
                   "widened by the client's lateness. "
                   "n/a: the run did not measure it (never guessed).",
    "col_dimension": "Dimension", "col_verdict": "Verdict",
    "na": "n/a",
    "judge_name_strict": "Strict", "judge_name_tolerant": "Tolerant", "judge_name_full": "Full",
    "judge_name_spider2": "Spider2", "judge_name_bird": "BIRD", "judge_name_test-suite": "test-suite",
    "judge_spider2": "spider2 (Spider2-lite's own evaluator): every gold column it checks (the "
                     "instance's condition columns, else all) must equal some column of the "
                     "answer, numbers within 0.01, a missing value read as 0; extra columns, "
                     "names and column order do not matter; with the instance's ignore_order "
                     "each column is sorted on its own.",
    "judge_bird": "bird (BIRD's own evaluator): the answer's rows as a set equal the gold's, "
                  "values compared exactly; duplicates, row order and names do not matter.",
    "judge_test-suite": "test-suite (Spider's test-suite-sql-eval): the same number of rows and "
                        "columns, and some order of the answer's columns under which the rows "
                        "equal the gold's, in order when the gold's text says ORDER BY; values "
                        "exact, names ignored.",
    "tier_trivial": "trivial", "tier_easy": "easy", "tier_medium": "medium", "tier_hard": "hard",
    "tolerant_short": "tolerant {n}",
    "prompt_completion": "{p} + {c}",
    "doubt": "(measurement doubtful: {codes})",
    "capacity": "Speed and quality together",
    "capacity_intro": "One SQL task costs several requests and thousands of tokens, so capacity "
                      "is planned in tasks: each configuration pairs a throughput run with a "
                      "SQL run of the same endpoint and model.",
    "capacity_none": "Section skipped: no throughput run and SQL run of the same endpoint and "
                     "model among the compared runs.",
    "profile": "{label}: {steps:.1f} steps per question, {p:,.0f} prompt + {c:,.0f} completion "
               "tokens per step; pass rate strict {strict}, tolerant {tolerant}.",
    "col_config": "Configuration", "col_concurrency": "Concurrency",
    "col_measured_h": "Tasks per hour measured (replay)",
    "measured_cell": "{v} [{low}-{high}]",
    "fig_per_hour_measured": "{v} strict-correct answers per hour measured by replay at {n} "
                             "agents [{low}-{high}]",
    "crit_win_measured": "best on the replayed figures, outside the noise: {w}, {fig}{rest}",
    "cap_reason_not_swept": "the sweep did not measure this concurrency",
    "capacity_measured_text": "Measured tasks per hour (replay): a SQL run's recorded "
                              "conversations sent again by `throughline throughput "
                              "--replay-eval RUN_ID --sessions N` as N concurrent agents, each "
                              "step holding the recorded history and reply length and the "
                              "recorded time between steps; tasks per hour = N x 3600 / the "
                              "mean seconds per task, its 95 % interval a bootstrap over the "
                              "tasks. Where every configuration was replayed, the most usable "
                              "answers per hour is decided on these figures (tasks per hour x "
                              "strict pass rate, the interval from both intervals' ends), and "
                              "a winner is named only outside the noise.",
    "kind_replay": "replay",
    "col_s_task": "Seconds per task", "col_tasks_h": "Tasks per hour",
    "col_correct_h": "Correct per hour ({judge})", "col_extrap": "Prompt tokens extrapolated",
    "cost": "Cost per correct answer",
    "col_judge": "Judge", "col_tier": "Tier", "col_passed": "Passed",
    "col_tokens_pass": "Tokens per pass", "col_seconds_pass": "Seconds per pass",
    "cost_cell": "{passed} passed · {tokens}\u00a0tokens · {secs}",
    "cost_intro": "Per judge: questions passed, tokens per question passed, seconds per "
                  "question passed (as the SQL run measured them).",
    "tier_all": "all",
    "criteria": "Which configuration wins for which success criterion",
    "crit_users_dont_wait": "Users don't wait (lowest time per task)",
    "crit_answers_usable": "Answers usable as they are (highest strict pass rate)",
    "crit_usable_per_hour": "Most usable answers per hour (strict)",
    "crit_win": "best on the modelled figures: {w}, {fig}{rest}",
    "crit_only": "Only {w} has this figure: {fig}",
    "crit_none": "n/a: no configuration has this figure",
    "crit_even": "about even: {figs}",
    "fig_s_task": "{v} per task", "fig_rate": "{v} strict pass rate",
    "fig_per_hour": "{v} strict-correct answers per hour",
    "charts_tp": "Throughput charts",
    "charts_tp_none": "Section skipped: no throughput run among the compared runs.",
    "chart_prefill": "Prefill tok/s per request against prompt length",
    "chart_decode": "Decode tok/s per request against prompt length",
    "chart_ttft": "TTFT (s) against prompt length",
    "chart_change": "Change against 1 concurrent (mean over prompt lengths)",
    "chart_timeline": "Server queue and KV cache, run {run}",
    "chart_timeline_none": "Run {run}: no /metrics samples were stored (the server exposes no "
                           "/metrics, or scraping was off).",
    "chart_timeline_idle": "Run {run}: none of its {n} /metrics samples saw a request running "
                           "or waiting (its requests were shorter than the scrape interval).",
    "axis_prompt": "prompt tokens", "axis_tps": "tok/s", "axis_s": "seconds",
    "axis_concurrency": "concurrent requests", "axis_change": "change %",
    "axis_time": "seconds since the run started", "axis_requests": "requests",
    "axis_kv": "KV cache %", "axis_rate": "pass rate %", "axis_tokens": "tokens per question",
    "axis_per_hour": "correct answers per hour",
    "series_running": "running", "series_waiting": "waiting", "series_kv": "KV cache",
    "series_prefill": "Prefill", "series_decode": "Decode", "series_prompt": "prompt",
    "series_completion": "completion",
    "charts_sql": "SQL evaluation charts",
    "charts_sql_none": "Section skipped: no SQL run among the compared runs.",
    "chart_pass_tier": "Pass rate by tier per judge",
    "chart_tokens_tier": "Mean tokens per question by tier (dark: prompt, light: completion)",
    "chart_capacity": "Correct answers per hour against concurrency (capacity model)",
    "chart_measured": "{label} {judge}, measured (replay)",
    "chart_capacity_measured": "Correct answers per hour against concurrency (capacity model; "
                               "dots: measured by replay)",
    "diagnosis": "Diagnosis findings",
    "diagnosis_none": "Run {run}: nothing stands out.",
    "suggestion": "Suggestion",
    "english_only": "",
    "failed": "Top failed questions",
    "failed_none": "Run {run}: every question passed the strict judge.",
    "failed_more": "... and {n} more failed questions in run {run}.",
    "q_class": "class", "q_verdicts": "verdicts", "q_why": "why",
    "severity_info": "info", "severity_warning": "warning", "severity_problem": "problem",
    "appendix": "Appendix: methods and metric definitions",
    "appendix_intro": "The definitions every number in this summary uses.",
    "methods": "How the report decides that runs differ",
    "method_interval": "Interval: every speed figure carries a 95 % bootstrap percentile "
                       "interval. The requests of the cell are resampled with replacement 2,000 "
                       "times, the statistic is taken of each resample, and the interval runs "
                       "from the 2.5th to the 97.5th percentile of those values. The statistic "
                       "is the median for TTFT and the mean for Prefill and Decode tok/s per "
                       "request. The resampling is seeded from the data, so the same stored run "
                       "always prints the same interval; n is the number of requests behind "
                       "the figure, and a figure from a single request has no interval.",
    "method_winner": "Winner: a run wins a row only when its interval and the runner-up's do "
                     "not overlap. Otherwise the row says the runs are about even (within "
                     "noise), however large the gap between the two values looks. Two 95 % "
                     "intervals that just fail to overlap mean a difference at about the 0.6 % "
                     "level: the report would rather call a row even than name a winner in the "
                     "noise. The two values must also be at least 10 % apart (10 percentage "
                     "points for a change): two runs of one server drift apart by that much, "
                     "which no interval of a single run can show. What one request "
                     "experiences (TTFT, TPOT, decode, prefill) in a cell where requests share "
                     "the server must be at least 35 % apart: there two runs of one server "
                     "were measured up to a third apart while their total output agreed.",
    "method_average": "Per cell: every speed figure is compared cell by cell (prompt length "
                      "x concurrency x output length), never pooled across prompt lengths; a "
                      "figure's first row counts the cells each run wins at each concurrency. "
                      "System figures (total output tok/s, requests per second, goodput) say "
                      "what the server delivers in all; they are one measurement of the cell's "
                      "wall clock, and their interval is that of the closed loop's rate by "
                      "Little's law (the sum of tokens, or of requests, over the sum of "
                      "end-to-end times, bootstrapped over the requests) moved onto the "
                      "measured value. Per-user figures (TTFT, TPOT, decode and prefill per "
                      "request) say what each request gets.",
    "method_scenarios": "Scenarios: many concurrent users weighs TTFT and total output in every "
                        "cell above 1 concurrent; one user's streaming speed weighs decode per "
                        "request in every cell; structured tasks weigh the strict pass rate. A "
                        "run is ahead in a scenario when it wins at least one of its cells and "
                        "no other run wins any; when two runs each win some, the scenario is "
                        "mixed; a tie or a difference inside the noise never counts.",
    "method_mcnemar": "Paired pass rates: two SQL runs judged on the same questions (and "
                      "epochs) are compared question by question. Only the discordant "
                      "questions count: b that A passed and B failed, c the other way (\"B "
                      "fixes c, breaks b\"). The exact McNemar test gives the two-sided "
                      "p-value min(1, 2 × P[Binomial(b + c, 1/2) ≤ min(b, c)]); the "
                      "difference is significant when p < 0.05.",
    "method_wilson": "Unpaired pass rates: runs not judged on the same questions get a 95 % "
                     "Wilson score interval for each pass rate, and a winner only when the "
                     "intervals do not overlap.",
    "method_client_bound": "The client's lateness: how late the load generator's own loop "
                           "ran (the p99 lateness of a 10 ms timer) widens the interval of the "
                           "figures it can move, on the side a late stamp hides: TTFT by up to "
                           "that lag, prefill by the rate over a TTFT that much shorter, TPOT "
                           "and decode by the lag spread over the request's tokens; the system "
                           "rates hardly. A cell whose client ran late or used nearly a whole "
                           "core is marked client-bound. When two values are apart on the "
                           "requests but the widened intervals overlap, the row says the "
                           "client could explain the gap and names no winner.",
    "metric_defs": "Metric definitions",
    "capacity_model": "Capacity model",
    "capacity_model_text": "For each agent step s of each question (its stored prompt tokens "
                           "p and completion tokens k) at concurrency c: time = p / Prefill "
                           "tok/s(c, nearest measured prompt length) + (k - 1) / Decode "
                           "tok/s(c, same length). Time per task = the mean over questions of "
                           "the sum over its steps. Tasks per hour = c x 3600 / time per task; "
                           "correct answers per hour = tasks per hour x the judge's pass rate. "
                           "Tool time between steps is left out and prefix caching is not "
                           "credited.",
    "cost_model_text": "Tokens per pass = all tokens of the SQL run / questions passed; seconds "
                       "per pass = the run's measured wall seconds per question, summed, / "
                       "questions passed.",
    # The core metrics' definitions: core/metrics.py DEFINITIONS (one home); then the report's.
    **{f"def_{key}": words for key, words in DEFINITIONS.items()},
    "def_missing_round": "answers that omit the ROUND(x, n) their question asks for (the "
                         "judges' missing_round explanation), each answer counted once",
    "def_client_bound": "a cell whose client may have inflated its latencies (its event loop "
                        "ran late, or it used nearly a whole core): marked, its intervals "
                        "widened by that lateness",
    "def_interval": "the range a figure's true value lies in with 95 % confidence: bootstrap "
                    "percentile for speed and effort, Wilson score for unpaired pass rates",
    "def_concurrency": "requests kept in flight at once by the load generator (closed loop)",
    "def_kv_cache": "the share of the server's KV cache in use, from its /metrics",
    "def_running": "requests the server was running at a /metrics sample",
    "def_waiting": "requests queued at the server at a /metrics sample, not yet running",
    "def_prompt_tokens": "the prompt length of a sweep cell's requests (tokens)",
    "def_pass_rate": "questions a judge passed / questions judged, epochs pooled (fraction)",
    "def_mean_steps": "model calls per question (agent steps), mean over the tier's questions",
    "def_mean_tokens": "prompt + completion tokens summed over a question's steps, mean over "
                       "the tier's questions (the server's usage counts)",
    "def_failure_class": "the first finding of the strict verdict of a failed question",
    "def_seconds_per_task": "modelled seconds per question at a concurrency (capacity model)",
    "def_tasks_per_hour": "concurrency x 3600 / seconds per task (capacity model)",
    "def_measured_tasks_per_hour": "a stored SQL run's conversations replayed as N concurrent "
                                   "agents: N x 3600 / the mean seconds per task, first send "
                                   "to last token, its 95 % interval a bootstrap over the tasks",
    "def_correct_per_hour": "tasks per hour x the judge's pass rate",
    "def_tokens_per_pass": "all tokens of the SQL run / questions the judge passed",
    "def_predicted_effect": "a tuning suggestion's effect on TTFT p50, Decode tok/s per request "
                            "and Output tok/s at each prompt length's most loaded cell, from the "
                            "engine model fitted to the run, simulated in virtual time; a change "
                            "under 5 % counts as none",
    "page": "Page {n}",
    "colon": ": ",
    "engine_simulated": "{engine} (simulated)",
    "verdicts": "Verdicts",
    "verdicts_intro": "A run is named the winner only where the difference is outside the noise "
                      "(95 % intervals that do not overlap and at least 10 % apart, 35 % for one "
                      "request's figures under concurrency; paired pass "
                      "rates by the exact McNemar test); otherwise the runs are about even. The "
                      "pages that follow give every value with its interval.",
    "sum_speed": "Speed (throughput runs)", "sum_quality": "Quality (SQL evaluation runs)",
    "sum_capacity": "Capacity in tasks",
    "col_at": "{c} concurrent",
    "sum_win": "{w} wins, {by}",
    "sum_cells_won": "{w} wins {k} of {n} cells",
    "sum_cells_won_one": "{w} wins",
    "sum_cells_even": "even in {n} cells",
    "sum_cells_even_one": "even",
    "sum_cells_mixed": "split: {items}",
    "verdicts_intro_cells": "Figures are compared cell by cell, never pooled across prompt "
                            "lengths.",
    "sum_even": "about even",
    "sum_not_comparable": "not comparable",
    "sum_no_tp": "No throughput run among the compared runs.",
    "sum_no_sql": "No SQL evaluation run among the compared runs.",
    "sum_missing_round": "Answers that omit the ROUND(x, n) their question asks for: {items}",
    "sum_missing_round_run": "{run} {n} of {total} judged",
    "list_sep": "; ",
    "sum_capacity_measured": "Most usable answers per hour is decided on stored replays' "
                             "measured figures and their 95 % intervals (the other criteria "
                             "on the model).",
    "sum_capacity_note": "Capacity figures are modelled from the sweeps' means and carry no "
                         "interval: they rank the configurations, they are not tested against "
                         "noise.",
    "grid": "Prefill, decode and TTFT by prompt length and concurrency",
    "grid_intro": "Each cell as measured: Prefill tok/s (mean per request, queueing included) "
                  "with its change against 1 concurrent at the same prompt length, Decode tok/s "
                  "(mean per request) and TTFT (median). Orange: a client-bound cell (the load "
                  "generator may have inflated its latencies).",
    "col_prompt": "Prompt tokens", "col_output": "Output tokens", "col_conc": "Concurrent",
    "col_prefill": "Prefill tok/s (vs 1)", "col_decode": "Decode tok/s", "col_ttft": "TTFT",
    "col_term": "Name", "col_definition": "Definition", "col_unit": "Unit",
    "col_criterion": "Success criterion (bold: best)",
    "cap_reason_no_steps": "the SQL run stored no steps",
    "cap_reason_no_prefill": "prefill not measured at this concurrency",
    "cap_reason_no_decode": "decode not measured at this concurrency (every token arrived at "
                            "once)",
    "cap_reason_no_time": "no time per task (empty steps)",
}

ZH = {
    "title": "对比评测摘要",
    "subtitle": "共对比 {n} 次运行，生成于 {when} UTC",
    "cover": "对比对象",
    "col_run": "运行", "col_kind": "类型", "col_name": "名称", "col_endpoint": "端点",
    "col_model": "模型", "col_engine": "推理引擎", "col_status": "状态",
    "col_started": "开始时间 (UTC)",
    "kind_throughput": "吞吐测试", "kind_sql": "SQL 答题评测",
    "settings": "各次运行：备注、配置与服务端参数",
    "run_note": "备注",
    "run_config_tp": "扫描配置",
    "run_config_sql": "评测配置",
    "settings_server": "从服务端读取的参数",
    "settings_user": "用户填写的服务端参数",
    "settings_none": "服务端参数：本次运行未记录",
    "settings_contradicted": "{name} = {value}（服务端报告为 {server}）",
    "cfg_lengths": "提示长度 {v} token",
    "cfg_output": "输出 {v} token",
    "cfg_concurrency": "并发 {v}",
    "cfg_rates": "开环，每秒 {v} 个请求",
    "cfg_requests": "每单元 {n} 个请求",
    "cfg_requests_default": "每单元 max(4 × 并发, 8) 个请求",
    "cfg_warmup": "{n} 个预热请求",
    "cfg_budget": "每单元最多 {v}",
    "cfg_same_prompts": "同一长度的请求使用相同提示（可命中前缀缓存）",
    "cfg_no_metrics": "未采集 /metrics",
    "cfg_temperature": "温度 {v}",
    "cfg_ignore_eos": "ignore_eos {v}",
    "cfg_goodput": "goodput 目标：{v}",
    "cfg_imported": "导入自 {tool}：{file}",
    "cfg_missing": "文件中缺少：{v}",
    "cfg_questions": "题集 {v}",
    "cfg_tiers": "难度 {v}",
    "cfg_ids": "题目 {v}",
    "cfg_judges": "判定 {v}",
    "cfg_tolerance": "数值容差 {v}",
    "cfg_ignore_names": "不比较列名",
    "cfg_strategies": "策略 {v}",
    "cfg_steps": "最多 {n} 步",
    "cfg_max_tokens": "最多 {n} token",
    "cfg_time_limit": "每题最多 {v}",
    "cfg_sql_concurrency": "同时 {n} 道题",
    "cfg_epochs": "{n} 轮",
    "cfg_language": "题目语言：{v}",
    "cfg_tool_mode": "工具调用：{v}",
    "cfg_retries": "失败调用重试 {n} 次",
    "lang_en": "英文", "lang_zh": "中文",
    "tool_native": "原生", "tool_text": "文本内",
    "differs": "各运行之间的差异",
    "differs_intro": "各运行记录的服务端参数中取值不同的项，参数名按推理引擎的写法（vLLM 的名称）。"
                     "标有（用户）的值由用户填写，其余从服务端读取。",
    "differs_same": "各运行记录的服务端参数完全相同。",
    "differs_none": "没有运行记录服务端参数，无从比较。",
    "col_setting": "参数",
    "not_recorded": "未记录",
    "mark_user": "（用户）",
    "n_obs": "n = {n}",
    "status_completed": "已完成", "status_cancelled": "已取消", "status_failed": "失败",
    "status_running": "运行中", "status_interrupted": "已中断",
    "unfinished": "{n} 道未完成，不计入",
    "epochs_spread": "{n} 轮之间 {lo}-{hi}",
    "judges": "判定标准",
    "judge_strict": "严格（参考评测口径）：行数、列数、列名（区分大小写）和首行都必须一致，按字符串比较。",
    "judge_tolerant": "容差：与严格相同的检查（行数、列数、列名不区分大小写、首行），数值先按题目"
                      "要求取整，再按容差（{tol}）判定相等；3 等于 3.0。通过严格的答案必然通过容差。",
    "judge_full": "完整：所有行按多重集合比较，仅当题目要求顺序时检查顺序，同样先取整再按容差比较；"
                  "列名可选。超过沙箱 10,000 行的结果会完整读取；题目有多个可接受答案时，"
                  "与任意一个一致即通过。",
    "simulated": "模拟数据：这些运行针对 Throughline 内置模拟器或脚本化角色，数字只反映评测工具本身，"
                 "不代表任何模型。",
    "notes": "说明",
    "note_kind_left_out": "运行 #{run} 是 {kind} 类运行：没有章节读取此类运行，已略去",
    "note_replay_unused": "运行 #{run} 是回放，但对比中没有测过其服务器的吞吐测试：已略去（回放列在其服务器的吞吐测试旁）",
    "compare_error_too_few": "对比至少需要两个不同的运行，当前只有 {n} 个",
    "compare_error_no_run": "{path} 中没有运行 {ids}",
    "note_sql_without_sweep": "SQL 评测 #{run}（{model}，{target}）在此没有同一端点、同一模型的"
                              "吞吐测试",
    "note_sweep_without_sql": "吞吐测试 #{run}（{model}，{target}）在此没有同一端点、同一模型的 "
                              "SQL 评测，因此没有按任务计的容量",
    "table": "对比总表",
    "table_tp": "速度（吞吐测试）",
    "table_sql": "质量（SQL 答题评测）",
    "table_intro": "每行一个维度，每列一次运行：每个数值附 95 % 区间 [下限 – 上限] 和 n（其所依据的"
                   "请求数或题数）。只有差异超出噪声范围时，最后一列才给出胜者（方法见附录）；"
                   "受客户端限制的数值会标出，其区间按客户端延迟放宽。不适用表示该运行未测量此项（绝不臆测）。",
    "col_dimension": "维度", "col_verdict": "结论",
    "na": "不适用",
    "judge_name_strict": "严格", "judge_name_tolerant": "容差", "judge_name_full": "完整",
    "judge_name_spider2": "Spider2", "judge_name_bird": "BIRD", "judge_name_test-suite": "test-suite",
    "judge_spider2": "spider2（Spider2-lite 官方评测）：它检查的每一列参考答案（该题的条件列，否则全部列）"
                     "都必须与答案的某一列一致，数值误差在 0.01 以内，缺失值按 0 计；多出的列、列名和列顺序"
                     "都不影响；该题忽略顺序时每一列各自排序后比较。",
    "judge_bird": "bird（BIRD 官方评测）：答案的行作为集合与参考答案相同，数值精确比较；重复行、行顺序和"
                  "列名都不影响。",
    "judge_test-suite": "test-suite（Spider 的 test-suite-sql-eval）：行数和列数相同，且存在一种列顺序"
                        "使各行与参考答案相同；参考答案文本含 ORDER BY 时按顺序比较；数值精确，忽略列名。",
    "tier_trivial": "trivial", "tier_easy": "easy", "tier_medium": "medium", "tier_hard": "hard",
    "tolerant_short": "容差 {n}",
    "prompt_completion": "{p} + {c}",
    "doubt": "（测量存疑：{codes}）",
    "capacity": "速度与质量结合",
    "capacity_intro": "一道 SQL 题需要多次请求、数千 token，因此容量要按任务数规划：每个配置由同一端点、"
                      "同一模型的一次吞吐测试和一次 SQL 评测组成。",
    "capacity_none": "本节跳过：对比的运行中没有同一端点、同一模型的吞吐测试与 SQL 评测。",
    "profile": "{label}：每题 {steps:.1f} 步，每步 {p:,.0f} 提示 + {c:,.0f} 生成 token；"
               "严格通过率 {strict}，容差通过率 {tolerant}。",
    "col_config": "配置", "col_concurrency": "并发数",
    "col_measured_h": "实测每小时任务数（回放）",
    "measured_cell": "{v}［{low}-{high}］",
    "fig_per_hour_measured": "回放实测：{n} 个智能体时每小时 {v} 个严格正确答案［{low}-{high}］",
    "crit_win_measured": "按回放实测且超出噪声的最优：{w}，{fig}{rest}",
    "cap_reason_not_swept": "吞吐测试未测此并发",
    "capacity_measured_text": "实测每小时任务数（回放）：用 `throughline throughput --replay-eval "
                              "RUN_ID --sessions N` 把某次 SQL 评测记录的对话以 N 个并发智能体重新发送，"
                              "每步带上记录的历史与回复长度，并保留记录的步间耗时；每小时任务数 = N × 3600 / "
                              "每题平均秒数，其 95 % 区间由对任务的自助法（bootstrap）给出。每个配置都有回放时，"
                              "“每小时可用答案最多”按这些数字判定（每小时任务数 × 严格通过率，区间取两者区间的端点），"
                              "只有超出噪声才判定胜者。",
    "kind_replay": "回放",
    "col_s_task": "每题耗时（秒）", "col_tasks_h": "每小时任务数",
    "col_correct_h": "每小时正确数（{judge}）", "col_extrap": "外推的提示 token 占比",
    "cost": "每个正确答案的成本",
    "col_judge": "判定", "col_tier": "难度", "col_passed": "通过",
    "col_tokens_pass": "每个通过的 token", "col_seconds_pass": "每个通过的秒数",
    "cost_cell": "通过 {passed} · {tokens}\u00a0token · {secs}",
    "cost_intro": "按判定：通过题数、每道通过题的 token、每道通过题的秒数（SQL 评测实测）。",
    "tier_all": "全部",
    "criteria": "按成功标准选型",
    "crit_users_dont_wait": "用户不等待（每题耗时最短）",
    "crit_answers_usable": "结果可直接使用（严格通过率最高）",
    "crit_usable_per_hour": "每小时可用答案最多（严格）",
    "crit_win": "按模型推算的数字最优：{w}，{fig}{rest}",
    "crit_only": "仅 {w} 有此数据：{fig}",
    "crit_none": "不适用：没有配置有此数据",
    "crit_even": "大致持平：{figs}",
    "fig_s_task": "每题 {v}", "fig_rate": "严格通过率 {v}",
    "fig_per_hour": "每小时 {v} 个严格正确答案",
    "charts_tp": "吞吐图表",
    "charts_tp_none": "本节跳过：对比的运行中没有吞吐测试。",
    "chart_prefill": "单请求 Prefill tok/s 随提示长度变化",
    "chart_decode": "单请求 Decode tok/s 随提示长度变化",
    "chart_ttft": "TTFT（秒）随提示长度变化",
    "chart_change": "相对单并发的变化（各提示长度平均）",
    "chart_timeline": "服务端队列与 KV 缓存，运行 {run}",
    "chart_timeline_none": "运行 {run}：未保存 /metrics 采样（服务端无 /metrics 或未开启采集）。",
    "chart_timeline_idle": "运行 {run}：{n} 次 /metrics 采样均未看到运行中或排队的请求（请求时长短于采样间隔）。",
    "axis_prompt": "提示 token", "axis_tps": "tok/s", "axis_s": "秒",
    "axis_concurrency": "并发请求数", "axis_change": "变化 %",
    "axis_time": "运行开始后的秒数", "axis_requests": "请求数",
    "axis_kv": "KV 缓存 %", "axis_rate": "通过率 %", "axis_tokens": "每题 token",
    "axis_per_hour": "每小时正确答案数",
    "series_running": "运行中", "series_waiting": "排队", "series_kv": "KV 缓存",
    "series_prefill": "Prefill", "series_decode": "Decode", "series_prompt": "提示",
    "series_completion": "生成",
    "charts_sql": "SQL 评测图表",
    "charts_sql_none": "本节跳过：对比的运行中没有 SQL 评测。",
    "chart_pass_tier": "各难度、各判定的通过率",
    "chart_tokens_tier": "各难度每题平均 token（深色：提示，浅色：生成）",
    "chart_capacity": "每小时正确答案数随并发变化（容量模型）",
    "chart_measured": "{label} {judge}，实测（回放）",
    "chart_capacity_measured": "每小时正确答案数随并发变化（容量模型；点线：回放实测）",
    "diagnosis": "诊断结论",
    "diagnosis_none": "运行 {run}：未发现明显问题。",
    "suggestion": "建议",
    "english_only": "（以下为早期版本保存的英文原文，照录。）",
    "failed": "失败题目（前若干道）",
    "failed_none": "运行 {run}：所有题目均通过严格判定。",
    "failed_more": "……运行 {run} 另有 {n} 道失败题。",
    "q_class": "类型", "q_verdicts": "判定", "q_why": "原因",
    "severity_info": "提示", "severity_warning": "警告", "severity_problem": "问题",
    "appendix": "附录：方法与指标定义",
    "appendix_intro": "本摘要中每个数字所用的定义。",
    "methods": "如何判定运行之间有差异",
    "method_interval": "区间：每个速度数字都带有 95 % 自助法（bootstrap）百分位区间。对单元内的请求"
                       "有放回地重抽样 2000 次，对每次重抽样计算统计量，区间为这些值的第 2.5 到第 "
                       "97.5 百分位。TTFT 取中位数，单请求 Prefill 与 Decode tok/s 取平均值。重抽样的"
                       "随机种子由数据本身决定，因此同一次保存的运行总是给出相同的区间；n 为该数字所依据"
                       "的请求数，只有一个请求的数字没有区间。",
    "method_winner": "胜出：只有当一次运行的区间与第二名的区间不重叠时，它才在该行胜出；否则该行写明"
                     "两者大致持平（在噪声范围内），无论两个数值看起来相差多少。两个 95 % 区间恰好"
                     "不重叠，约相当于 0.6 % 显著性水平上的差异：本报告宁可判为持平，也不在噪声中"
                     "指定胜者。两个数值还必须至少相差 10 %（变化量为 10 个百分点）：同一服务端的两次运行"
                     "之间就会漂移这么多，单次运行的区间无法反映这一点。在多个请求共享服务端的单元格中，"
                     "单个请求的指标（TTFT、TPOT、Decode、Prefill）须至少相差 35 %：实测同一服务端的两次"
                     "运行在这些指标上相差可达三分之一，而总输出几乎一致。",
    "method_average": "逐单元格比较：每项速度指标按单元格（提示长度 × 并发 × 输出长度）逐一比较，"
                      "从不跨提示长度合并；每项指标的第一行统计各运行在每个并发下胜出的单元格数。"
                      "系统指标（总输出 tok/s、每秒请求数、有效吞吐）反映服务端的总交付能力，是对"
                      "单元墙钟时间的一次测量，其区间取闭环速率按利特尔定律（token 数或请求数之和除以"
                      "端到端时间之和，对请求做自助法重抽样）的相对区间，再套用到实测值上。单用户指标"
                      "（TTFT、TPOT、单请求 Decode 与 Prefill）反映每个请求的体验。",
    "method_scenarios": "典型场景：多用户并发看并发大于 1 的每个单元格的 TTFT 与总输出；单用户流式速度"
                        "看每个单元格的单请求 Decode；结构化任务看严格通过率。某运行在一个场景中至少"
                        "胜出一个单元格、且其他运行一个都未胜出时，判为领先；两个运行各有胜出时为"
                        "互有胜负；持平或在噪声范围内的差异从不计入。",
    "method_mcnemar": "配对通过率：在相同题目（及轮次）上判定的两次 SQL 评测逐题比较，只有结果不一致"
                      "的题目计入：b 为 A 通过而 B 未通过的题数，c 为反之（“B 修正 c 题，"
                      "破坏 b 题”）。精确 McNemar 检验给出双侧 p 值 min(1, 2 × P[Binomial(b + c, "
                      "1/2) ≤ min(b, c)])；p < 0.05 时差异显著。",
    "method_wilson": "非配对通过率：未在相同题目上判定的运行，各自的通过率使用 95 % Wilson 区间，"
                     "只有区间不重叠时才有胜者。",
    "method_client_bound": "客户端自身的延迟：压测客户端事件循环的滞后（10 ms 定时器滞后的 p99）会"
                           "放宽它可能影响的指标的区间，且只放宽延迟会掩盖的一侧：TTFT 最多放宽该"
                           "滞后量，Prefill 按缩短该量后的 TTFT 折算，TPOT 与 Decode 按滞后量摊到"
                           "请求的各个 token 上；系统速率几乎不受影响。事件循环滞后或几乎占满一个 CPU "
                           "核的单元标为受客户端限制。两个数值按请求看有差距、但放宽后的区间重叠时，"
                           "该行写明客户端延迟足以解释这一差距，不判胜者。",
    "metric_defs": "指标定义",
    "capacity_model": "容量模型",
    "capacity_model_text": "对每道题的每个智能体步骤 s（保存的提示 token p 与生成 token k），在并发 c 下："
                           "耗时 = p / Prefill tok/s(c, 最接近的已测提示长度) + (k - 1) / Decode "
                           "tok/s(c, 同一长度)。每题耗时 = 各题所有步骤耗时之和的平均值。每小时任务数 = "
                           "c × 3600 / 每题耗时；每小时正确答案数 = 每小时任务数 × 该判定的通过率。"
                           "不计步骤之间工具执行的时间，也不计前缀缓存的收益。",
    "cost_model_text": "每个通过的 token = SQL 评测的全部 token / 通过题数；每个通过的秒数 = "
                       "评测实测的每题耗时之和 / 通过题数。",
    "def_ttft_s": "首个携带任何 token（内容、工具调用或推理）的数据块到达时间减去发送时间（秒）",
    "def_prefill_tps": "单请求 prompt_tokens / TTFT，含排队时间（tok/s）",
    "def_decode_tps": "单请求 (completion_tokens - 1) / (最后一个 token - 第一个 token)（tok/s）",
    "def_tpot_s": "1 / decode_tps（vLLM 口径：不含 TTFT；秒）",
    "def_itl_s": "相邻内容块之间的间隔，汇总所有请求（秒）",
    "def_e2e_s": "最后一个 token 减去发送时间（秒）",
    "def_output_tps": "已完成请求的生成 token / 单元墙钟时间（tok/s）",
    "def_effective_prefill_tps": "提示 token / 各请求 [发送, 首 token] 区间并集的长度（tok/s）",
    "def_effective_decode_tps": "(生成 - 1) token / 各请求 [首 token, 末 token] 区间并集的长度",
    "def_prefill_change": "平均 prefill_tps / 单并发平均 prefill_tps - 1（比例）",
    "def_decode_change": "平均 decode_tps / 单并发平均 decode_tps - 1（比例）",
    "def_missing_round": "遗漏了题目要求的 ROUND(x, n) 的答案（判定的 missing_round 说明），每个答案计一次",
    "def_client_bound": "压测客户端可能拉高了延迟的单元（其事件循环滞后，或几乎占满一个 CPU 核）：会标出，其区间按该延迟放宽",
    "def_interval": "以 95 % 置信度包含真实值的范围：速度与工作量用自助法百分位区间，非配对通过率用 Wilson 区间",
    "def_concurrency": "压测客户端同时保持在途的请求数（闭环）",
    "def_kv_cache": "服务端 KV 缓存的占用比例，来自其 /metrics",
    "def_running": "某次 /metrics 采样时服务端正在运行的请求数",
    "def_waiting": "某次 /metrics 采样时在服务端排队、尚未运行的请求数",
    "def_prompt_tokens": "吞吐测试单元中请求的提示长度（token）",
    "def_pass_rate": "判定通过的题数 / 参与判定的题数，多轮合并（比例）",
    "def_mean_steps": "每题的模型调用次数（智能体步数），该难度各题的平均值",
    "def_mean_tokens": "一道题所有步骤的提示 + 生成 token 之和（服务端 usage 计数），该难度各题的平均值",
    "def_failure_class": "失败题目严格判定的第一条发现",
    "def_seconds_per_task": "某并发下模型估算的每题耗时（容量模型）",
    "def_tasks_per_hour": "并发数 × 3600 / 每题耗时（容量模型）",
    "def_measured_tasks_per_hour": "把保存的 SQL 评测对话以 N 个并发智能体回放：N × 3600 / 每题平均秒数"
                                   "（从首次发送到最后一个 token），95 % 区间由对任务的自助法给出",
    "def_correct_per_hour": "每小时任务数 × 该判定的通过率",
    "def_tokens_per_pass": "SQL 评测的全部 token / 该判定通过的题数",
    "def_predicted_effect": "某条调优建议在各提示长度负载最重的单元上对 TTFT p50、每请求 Decode tok/s 和输出 tok/s 的影响，由按本次运行拟合的引擎模型在虚拟时间中模拟得出；小于 5 % 的变化视为无变化",
    "page": "第 {n} 页",
    "colon": "：",
    "engine_simulated": "{engine}（模拟）",
    "verdicts": "结论",
    "verdicts_intro": "只有差异超出噪声范围时才判定胜者（95 % 区间不重叠且相差至少 10 %，并发下单个请求的指标须相差 35 %；配对通过率用"
                      "精确 McNemar 检验）；否则各运行大致持平。后续各页给出每个数值及其区间。",
    "sum_speed": "速度（吞吐测试）", "sum_quality": "质量（SQL 答题评测）",
    "sum_capacity": "按任务计的容量",
    "col_at": "{c} 并发",
    "sum_win": "{w} 胜出，{by}",
    "sum_cells_won": "{w} 在 {n} 个单元格中胜出 {k} 个",
    "sum_cells_won_one": "{w} 胜出",
    "sum_cells_even": "{n} 个单元格持平",
    "sum_cells_even_one": "持平",
    "sum_cells_mixed": "互有胜负：{items}",
    "verdicts_intro_cells": "各项指标按单元格逐一比较，从不跨提示长度合并。",
    "sum_even": "大致持平",
    "sum_not_comparable": "无法比较",
    "sum_no_tp": "对比的运行中没有吞吐测试。",
    "sum_no_sql": "对比的运行中没有 SQL 评测。",
    "sum_missing_round": "遗漏了题目要求的 ROUND(x, n) 的答案：{items}",
    "sum_missing_round_run": "{run} 已判定 {total} 个中 {n} 个",
    "list_sep": "；",
    "sum_capacity_measured": "“每小时可用答案最多”按保存的回放实测数字及其 95 % 区间判定（其余标准按模型）。",
    "sum_capacity_note": "容量数字由吞吐测试的均值模型推算，没有区间：只用于排序，未经噪声检验。",
    "grid": "按提示长度与并发的 Prefill、Decode 与 TTFT",
    "grid_intro": "每格为实测值：Prefill tok/s（单请求平均，含排队）及其相对同一提示长度单并发的变化，"
                  "Decode tok/s（单请求平均）与 TTFT（中位数）。橙色：受客户端限制的单元（压测客户端"
                  "可能拉高了其延迟）。",
    "col_prompt": "提示 token", "col_output": "输出 token", "col_conc": "并发",
    "col_prefill": "Prefill tok/s（相对单并发）", "col_decode": "Decode tok/s", "col_ttft": "TTFT",
    "col_term": "名称", "col_definition": "定义", "col_unit": "单位",
    "col_criterion": "成功标准（粗体：最优）",
    "cap_reason_no_steps": "该 SQL 评测未保存步骤",
    "cap_reason_no_prefill": "此并发下未测得 Prefill",
    "cap_reason_no_decode": "此并发下未测得 Decode（所有 token 一次性到达）",
    "cap_reason_no_time": "无每题耗时（步骤为空）",
}

STRINGS = {"en": EN, "zh": ZH}


def lookup(strings: dict[str, dict[str, str]], lang: str, key: str, /, **values) -> str:
    """The entry `key` of a {language: {key: template}} catalogue in `lang` (English when a
    language lacks it), formatted with `values`."""
    template = strings.get(lang, strings["en"]).get(key, strings["en"][key])
    return template.format(**values) if values else template


def compare_error_text(exc, lang: str) -> str:
    """A `core.compare.CompareError` in words."""
    return text(lang, f"compare_error_{exc.code}", **exc.params)


def note_text(note, lang: str) -> str:
    """A comparison's note (`core.compare.CompareNote`) in words."""
    return text(lang, f"note_{note.code}", **note.params)


def text(lang: str, key: str, /, **values) -> str:
    """The entry `key` of the report's words in `lang`, formatted with `values`."""
    return lookup(STRINGS, lang, key, **values)


def judge_name(lang: str, judge: str) -> str:
    """A judge's name as a heading or label says it ("Strict" / "严格"), the one home of
    judges' names; a judge without words here (one added as a module, its words not yet
    written) is its code."""
    key = f"judge_name_{judge}"
    return text(lang, key) if key in STRINGS["en"] else judge


def judge_definition(lang: str, judge: str, tolerance: float) -> str:
    """What a judge checks, for the appendix; a judge without words here is its code."""
    key = f"judge_{judge}"
    return text(lang, key, tol=f"{tolerance:g}") if key in STRINGS["en"] else judge


# --------------------------------------------------------------------------- the glossary

# Every metric and term the PDF, the GUI's summary and the CLI's tables name: key -> (English
# name, Chinese name, English unit, Chinese unit). The Chinese names follow the seeds' tables
# (Prefill, Decode and TTFT as they are). docs/GLOSSARY.md is this table
# (tests/report/test_glossary.py keeps it in sync and checks the PDF's words use these names).
TERMS: dict[str, tuple[str, str, str, str]] = {
    "ttft_s": ("TTFT", "TTFT", "s", "秒"),
    "prefill_tps": ("Prefill tok/s", "Prefill tok/s", "tok/s", "tok/s"),
    "decode_tps": ("Decode tok/s", "Decode tok/s", "tok/s", "tok/s"),
    "prefill_change": ("Prefill change vs 1 concurrent", "相对单并发的 Prefill 变化", "%", "%"),
    "decode_change": ("Decode change vs 1 concurrent", "相对单并发的 Decode 变化", "%", "%"),
    "tpot_s": ("TPOT", "TPOT", "s", "秒"),
    "itl_s": ("ITL", "ITL", "s", "秒"),
    "e2e_s": ("End-to-end latency", "端到端延迟", "s", "秒"),
    "output_tps": ("Output tok/s", "输出 tok/s", "tok/s", "tok/s"),
    "effective_prefill_tps": ("Effective Prefill tok/s", "有效 Prefill tok/s", "tok/s", "tok/s"),
    "effective_decode_tps": ("Effective Decode tok/s", "有效 Decode tok/s", "tok/s", "tok/s"),
    "concurrency": ("Concurrent", "并发", "requests", "个请求"),
    "prompt_tokens": ("Prompt tokens", "提示 token", "tokens", "token"),
    "client_bound": ("Client-bound", "受客户端限制", "", ""),
    "kv_cache": ("KV cache", "KV 缓存", "%", "%"),
    "running": ("running", "运行中", "requests", "个请求"),
    "waiting": ("waiting", "排队", "requests", "个请求"),
    "interval": ("95 % interval", "95 % 区间", "as the figure", "同数值"),
    "pass_rate": ("Pass rate", "通过率", "%", "%"),
    "mean_steps": ("Mean steps per question", "每题平均步数", "steps", "步"),
    "mean_tokens": ("Mean tokens per question", "每题平均 token", "tokens", "token"),
    "failure_class": ("Failure class", "失败类型", "", ""),
    "missing_round": ("Missing ROUND", "遗漏 ROUND", "answers", "个答案"),
    "seconds_per_task": ("Seconds per task", "每题耗时（秒）", "s", "秒"),
    "tasks_per_hour": ("Tasks per hour", "每小时任务数", "tasks/h", "任务/小时"),
    "measured_tasks_per_hour": ("Tasks per hour measured (replay)", "实测每小时任务数（回放）",
                                "tasks/h", "任务/小时"),
    "correct_per_hour": ("Correct per hour", "每小时正确数", "answers/h", "答案/小时"),
    "tokens_per_pass": ("Tokens per pass", "每个通过的 token", "tokens", "token"),
    "predicted_effect": ("Predicted effect", "预测效果", "as the figure", "同数值"),
}


def term(lang: str, key: str) -> str:
    """A metric's or term's name in `lang` as the glossary gives it."""
    en, zh, _, _ = TERMS[key]
    return zh if lang == "zh" else en


def definition(lang: str, key: str) -> str:
    """A term's definition in `lang` (in English the core's DEFINITIONS for its metrics)."""
    return text(lang, f"def_{key}")


def unit(lang: str, key: str) -> str:
    _, _, en, zh = TERMS[key]
    return zh if lang == "zh" else en


def glossary_markdown() -> str:
    """docs/GLOSSARY.md: one table of every term (English and Chinese name, definition, unit)."""
    out = ["# Glossary: the names of the metrics and terms", "",
           "Every metric and term the comparison PDF, the GUI's summary and the command line",
           "name, in English and Chinese. Written from `desktop_app/report/strings.py`",
           "(`TERMS`; definitions from `core/metrics.py` `DEFINITIONS` and the `def_` entries);",
           "`tests/report/test_glossary.py` fails when this file and the code disagree.", "",
           "| key | English | 中文 | definition | 定义 | unit | 单位 |",
           "|---|---|---|---|---|---|---|"]
    for key in TERMS:
        cells = [f"`{key}`", term("en", key), term("zh", key), definition("en", key),
                 definition("zh", key), unit("en", key), unit("zh", key)]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out) + "\n"
