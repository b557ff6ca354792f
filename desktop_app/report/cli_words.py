"""The command line's own words, in English and Simplified Chinese: one catalogue for every
sentence a command prints that is not a finding, a verdict or an error the core raised with a
code (those have their own words modules, shared with the window and the PDF).

Entries are grouped by the command that prints them (`cli_text(lang, "questions",
"imported", ...)`); "run" holds what every job command says as it starts and ends.
tests/report/test_cli_words.py checks that every entry has its Chinese and that the CLI uses
every entry.
"""

from __future__ import annotations

from desktop_app.report.strings import lookup

RUN = {
    "en": {
        "simulator_started": "Started the built-in simulated endpoint (profile {profile}) at "
                             "{url}",
        "endpoint_line": "Endpoint {url}: {engine} {version}, model {model}, tokenizer "
                         "{tokenizer}, /metrics {metrics}",
        "sql_endpoint_line": "Endpoint {url}: {engine}, model {model}; set {set}",
        "simulated_engine": "simulated {engine}",
        "workload_line": "Workload {label}: {n:,} records, prompts about {input:,} tokens, "
                         "outputs about {output:,} on average (estimated from the file)",
        "workload_skipped": "{n:,} record(s) of the file left out; the first: {first}",
        "replay_head": "Replaying {n} recorded tasks of run {run} ({steps} model calls) on {model}",
        "replay_line": "{sessions} agent(s): {tasks} tasks in {wall} s; {tph} tasks per hour "
                       "[{low}-{high}]; step TTFT p50 {ttft} ms; a task {task} s on average; "
                       "{failed} failed",
        "replay_stored": "Stored as run {run} (kind replay); a comparison of sweep and SQL run "
                         "sets it beside the capacity model",
        "replay_model": "  the capacity model from sweep {run}: {tph} tasks per hour at "
                        "{sessions} concurrent (measured: {share} % of it)",
        "replay_no_model": "  the capacity model from sweep {run}: that sweep measured no "
                           "{sessions} concurrent",
        "replay_no_figure": "  the capacity model from sweep {run}: no figure at {sessions} "
                            "concurrent ({why})",
        "turns_line": "Sessions at {cell} ({sessions} conversations): {turns}",
        "turn_part": "turn {turn}: TTFT p50 {ttft} ms, {prompt} prompt tokens, cached {cached}",
        "reply_ratio_line": "The file's replies were sized at {ratio} characters a token, as the "
                            "server's tokenizer counted {n} of them",
        "prefix_cache_line": "The server's prefix cache at {cell}, by its own counters: "
                             "{share} % of the prompt tokens ({hits} of {queries}; {source})",
        "no_cache_report": "not reported",
        "turn_sep": "; ",
        "schedule_line": "Sent on the file's schedule (x{speedup}): each send started late by "
                         "p50 {p50:.1f} ms, p99 {p99:.1f} ms, at most {max:.1f} ms ({n:,} sends)",
        "sim_serving": "Simulated endpoint (profile {profile}, model {model}) serving on "
                       "{url}/v1 - press Ctrl+C to stop",
        "sim_serving_faults": "Simulated endpoint (profile {profile}, model {model}) with "
                              "faults {faults} serving on {url}/v1 - press Ctrl+C to stop",
        "no_tokenizer": "none (prompts calibrated)",
        "yes": "yes",
        "no": "no",
        "model_not_listed": "warning: model {model!r} is not among the endpoint's models "
                            "({models}); this engine accepts it anyway",
        "stored": "Run {run} stored in {path}",
        "resumed": "Run {run} resumed and {status} in {path}",
        "rejudged": "Run {run} re-judged (tolerance {tolerance:g}); no model was called.",
        "wrote": "Wrote {path}",
        "json_written": "JSON written to {path}",
        "imported_run": "Imported {file} as run {run} ({name}; {cells} cell(s)) into {path}",
        "missing": "Missing from the file (stored as missing, not estimated): {names}",
        "unexpected": "unexpected error: {kind}: {detail}{where}",
        "details_in": " (details in {path})",
        "demo_runs": "Runs {runs} in {path}",
        "demo_pdf": "Comparison: {path}",
        "demo_exports": "Exports: {n} files in {path}",
        "demo_app": "See them in the app: throughline --db {path} gui",
    },
    "zh": {
        "simulator_started": "已启动内置模拟端点（配置 {profile}），地址 {url}",
        "endpoint_line": "端点 {url}：{engine} {version}，模型 {model}，分词器 {tokenizer}，"
                         "/metrics {metrics}",
        "sql_endpoint_line": "端点 {url}：{engine}，模型 {model}；题集 {set}",
        "simulated_engine": "模拟的 {engine}",
        "workload_line": "负载 {label}：{n:,} 条记录，平均提示约 {input:,} 个 token、输出约 {output:,} 个"
                         "（按文件估算）",
        "workload_skipped": "文件中有 {n:,} 条记录被跳过；第一条：{first}",
        "replay_head": "在 {model} 上回放运行 {run} 记录的 {n} 个任务（{steps} 次模型调用）",
        "replay_line": "{sessions} 个智能体：{wall} 秒完成 {tasks} 个任务；每小时 {tph} 个任务"
                       "［{low}-{high}］；每步 TTFT p50 {ttft} 毫秒；平均每个任务 {task} 秒；失败 {failed} 个",
        "replay_stored": "已保存为运行 {run}（回放）；对比扫描与 SQL 运行时会把它列在容量模型旁",
        "replay_model": "  由扫描 {run} 得到的容量模型：并发 {sessions} 时每小时 {tph} 个任务（实测为其 {share} %）",
        "replay_no_model": "  由扫描 {run} 得到的容量模型：该扫描没有测并发 {sessions}",
        "replay_no_figure": "  由扫描 {run} 得到的容量模型：并发 {sessions} 时没有数值（{why}）",
        "turns_line": "会话（{cell}，共 {sessions} 个对话）：{turns}",
        "turn_part": "第 {turn} 轮：TTFT p50 {ttft} 毫秒，提示 {prompt} 个 token，缓存命中 {cached}",
        "reply_ratio_line": "文件中回复的长度按每个 token {ratio} 个字符换算（服务器分词器统计了其中 {n} 条）",
        "prefix_cache_line": "服务器自身计数器显示，{cell} 的前缀缓存命中提示 token 的 {share} %"
                             "（{queries} 个中的 {hits} 个；{source}）",
        "no_cache_report": "服务端未报告",
        "turn_sep": "；",
        "schedule_line": "按文件的时间表发送（x{speedup}）：每次发送的延迟 p50 {p50:.1f} 毫秒、"
                         "p99 {p99:.1f} 毫秒、最多 {max:.1f} 毫秒（共 {n:,} 次发送）",
        "sim_serving": "模拟端点（配置 {profile}，模型 {model}）正在 {url}/v1 上服务——按 Ctrl+C 停止",
        "sim_serving_faults": "模拟端点（配置 {profile}，模型 {model}，注入故障 {faults}）正在 {url}/v1 "
                              "上服务——按 Ctrl+C 停止",
        "no_tokenizer": "无（提示长度经校准）",
        "yes": "有",
        "no": "无",
        "model_not_listed": "警告：模型 {model!r} 不在端点的模型列表（{models}）中；该引擎仍然接受它",
        "stored": "运行 {run} 已保存到 {path}",
        "resumed": "运行 {run} 已续跑，状态：{status}，位于 {path}",
        "rejudged": "运行 {run} 已重新判定（容差 {tolerance:g}）；未调用模型。",
        "wrote": "已写入 {path}",
        "json_written": "JSON 已写入 {path}",
        "imported_run": "已将 {file} 导入为运行 {run}（{name}；{cells} 个单元），位于 {path}",
        "missing": "文件中缺少以下字段（按缺失保存，未作估算）：{names}",
        "unexpected": "意外错误：{kind}：{detail}{where}",
        "details_in": "（详情见 {path}）",
        "demo_runs": "运行 {runs}，位于 {path}",
        "demo_pdf": "对比报告：{path}",
        "demo_exports": "导出：{n} 个文件，位于 {path}",
        "demo_app": "在应用中查看：throughline --db {path} gui",
    },
}

QUESTIONS = {
    "en": {
        "imported": "Imported {n} questions from {fmt} ({file}) as the set {name!r} in {out}.",
        "databases": "Databases: {names}",
        "other_dbs": "{n} rows for other databases left out (--db-name {db}).",
        "skipped": "Skipped {n} records:",
        "warnings": "Warnings ({n}):",
        "no_columns": "The questions do not name their output columns or rounding: runs of "
                      "this set default to the full judge with column names ignored.",
        "run_it": "Try it with no GPU (a scripted persona answering with the accepted answers): "
                  "throughline sqleval --questions {name} --simulator fast --model sim/careful; "
                  "on your model: throughline sqleval --questions {name} --base-url URL",
        "progress": "running golds: {done}/{total}",
        "list_head": "Question sets (bundled, then imported in {dir}):",
        "none": "(none)",
        "set": "Set {name}: {n} questions ({tiers}) in {path}",
        "description": "Description: {text}",
        "database": "Database {key}: {path}",
        "db_note": "  told to the model: {text}",
        "asks_columns": "The questions name their output columns and rounding.",
        "q_line": "{id}  {tier:<7} {db}  {golds} accepted answer(s)  {text}",
        "q_id": "Question {id} ({tier}, database {db}, {source})",
        "q_text": "Text: {text}",
        "q_text_zh": "Text (zh): {text}",
        "q_gold": "Gold SQL: {sql}",
        "q_alt": "Alternative gold SQL {n}: {sql}",
        "q_file": "Gold result file: {path}",
        "q_columns": "Required columns: {cols}",
        "q_rounding": "Rounding: {rounding}",
        "q_order": "Order matters: {yes}",
        "yes": "yes",
        "no": "no",
        "no_question": "{set} has no question {id!r} (ids: {ids})",
        "checked": "Checked {name}: {n} questions, {golds} accepted answers.",
        "ok": "Every gold runs and returns something.",
        "summary": "{failed} cannot be used (runs skip them), {empty} return no rows, {null} "
                   "only NULLs.",
    },
    "zh": {
        "imported": "已从 {fmt}（{file}）导入 {n} 道题，题集 {name!r} 位于 {out}。",
        "databases": "数据库：{names}",
        "other_dbs": "其他数据库的 {n} 行未导入（--db-name {db}）。",
        "skipped": "跳过 {n} 条记录：",
        "warnings": "警告（{n}）：",
        "no_columns": "这些题目没有指明输出列名和舍入位数：本题集的评测默认只用 full 判定，且不比较列名。",
        "run_it": "无需 GPU 试运行（脚本化角色按可接受答案作答）：throughline sqleval --questions {name} "
                  "--simulator fast --model sim/careful；评测你的模型：throughline sqleval --questions "
                  "{name} --base-url URL",
        "progress": "正在运行标准答案：{done}/{total}",
        "list_head": "题集（内置的，以及导入到 {dir} 的）：",
        "none": "（无）",
        "set": "题集 {name}：{n} 道题（{tiers}），位于 {path}",
        "description": "说明：{text}",
        "database": "数据库 {key}：{path}",
        "db_note": "  告诉模型的说明：{text}",
        "asks_columns": "题目指明了输出列名和舍入位数。",
        "q_line": "{id}  {tier:<7} {db}  {golds} 个可接受答案  {text}",
        "q_id": "题目 {id}（{tier}，数据库 {db}，{source}）",
        "q_text": "题面：{text}",
        "q_text_zh": "中文题面：{text}",
        "q_gold": "标准 SQL：{sql}",
        "q_alt": "备选标准 SQL {n}：{sql}",
        "q_file": "标准结果文件：{path}",
        "q_columns": "要求的列：{cols}",
        "q_rounding": "舍入：{rounding}",
        "q_order": "顺序是否重要：{yes}",
        "yes": "是",
        "no": "否",
        "no_question": "{set} 中没有题目 {id!r}（题号：{ids}）",
        "checked": "已检查 {name}：{n} 道题，{golds} 个可接受答案。",
        "ok": "每个标准答案都能运行，且都有返回内容。",
        "summary": "{failed} 个无法使用（评测会跳过），{empty} 个没有返回行，{null} 个只有 NULL。",
    },
}

COMPARE = {
    "en": {"differs": "What differs between the runs",
           "same": "Nothing recorded differs (identity and server settings are the same in "
                   "every run).",
           "setting": "setting", "dimension": "dimension", "verdict": "verdict",
           "notes": "Notes", "speed": "Speed (throughput runs)",
           "quality": "Quality (SQL evaluation runs)", "scenarios": "Verdict per scenario",
           "capacity": "Capacity in tasks (the model; measured by replay where one exists)",
           "config": "configuration", "concurrency": "concurrency", "s_task": "s per task",
           "tasks_h": "tasks/h (model)", "measured_h": "tasks/h measured [95 %]"},
    "zh": {"differs": "各运行之间的差异", "same": "记录的身份信息与服务端参数在各运行中完全相同。",
           "setting": "参数", "dimension": "维度", "verdict": "结论", "notes": "说明",
           "speed": "速度（吞吐测试）", "quality": "质量（SQL 答题评测）",
           "scenarios": "典型场景选择",
           "capacity": "按任务计的容量（模型；有回放时附实测）",
           "config": "配置", "concurrency": "并发数", "s_task": "每题秒数",
           "tasks_h": "每小时任务数（模型）", "measured_h": "实测每小时任务数［95 %］"},
}

# Input the command line itself refuses (`cli.common.cli_error(flag, code, ...)`: an
# InputError with the code "cli_<code>", said in the reader's language by
# `report.input_words` like every other).
ERRORS = {
    "en": {
        "need_endpoint": "give an endpoint URL or --simulator PROFILE (one of them)",
        "endpoint_and_simulator": "give an endpoint URL or --simulator PROFILE, not both",
        "lang_env": "{env}={value!r} is not one of {langs}",
        "env_unset": "environment variable {name} is not set",
        "no_db": "no results database at {db}",
        "db_missing": "{path} does not exist",
        "runs_not_comparable": "fewer than two of these runs are throughput sweeps or SQL "
                               "evaluations",
        "demo_exists": "{out} already holds a demo ({db}); give an empty or new folder, so "
                       "nothing there is overwritten",
        "limit_min": "{value} must be at least 1",
        "not_run_id": "{items} is not a run id (whole numbers as `throughline runs` lists them)",
        "two_runs": "give at least two different run ids, got {n}",
        "not_pdf": "{path} does not end in .pdf",
        "layered_route": "applies only with --strategy layered",
        "not_port": "{value} is not a port number (0-65535)",
        "not_rounding": "{item} is not COL=N (e.g. avg_price=2)",
        "gold_query_failed": "the gold query failed: {error}",
        "set_needs_fit": "only with --from-run RUN_ID (a fitted model)",
        "needs_workload": "only with --workload FILE (a file with timestamps)",
        "needs_find_max": "only with --find-max",
        "needs_turns": "only with --turns N",
        "not_sweep_run": "run {run} is not a throughput sweep",
        "no_db_file": "no such database file: {spec}",
        "not_db_or_set": "{spec} is neither a database file nor SET:KEY of a question set "
                         "(`throughline questions list` shows the sets)",
        "no_set_db": "question set {set} has no database {key} ({known})",
    },
    "zh": {
        "need_endpoint": "请给出端点 URL 或 --simulator PROFILE（二者选一）",
        "endpoint_and_simulator": "请给出端点 URL 或 --simulator PROFILE，不要同时给出",
        "lang_env": "{env}={value!r} 不是 {langs} 之一",
        "env_unset": "环境变量 {name} 未设置",
        "no_db": "{db} 处没有结果数据库",
        "db_missing": "{path} 不存在",
        "runs_not_comparable": "这些运行中，吞吐测试或 SQL 评测不足两个",
        "demo_exists": "{out} 中已有演示（{db}）；请给出空的或新的文件夹，以免覆盖其中的内容",
        "limit_min": "{value} 至少应为 1",
        "not_run_id": "{items} 不是运行编号（应为 `throughline runs` 列出的整数）",
        "two_runs": "请至少给出两个不同的运行编号，当前只有 {n} 个",
        "not_pdf": "{path} 的扩展名不是 .pdf",
        "layered_route": "仅在 --strategy layered 时适用",
        "not_port": "{value} 不是端口号（0-65535）",
        "not_rounding": "{item} 不是 COL=N 的形式（例如 avg_price=2）",
        "gold_query_failed": "标准答案查询失败：{error}",
        "set_needs_fit": "仅可与 --from-run RUN_ID（拟合的模型）一起使用",
        "needs_workload": "仅可与 --workload FILE（带时间戳的文件）一起使用",
        "needs_find_max": "仅可与 --find-max 一起使用",
        "needs_turns": "仅可与 --turns N 一起使用",
        "not_sweep_run": "运行 {run} 不是吞吐扫描",
        "no_db_file": "数据库文件不存在：{spec}",
        "not_db_or_set": "{spec} 既不是数据库文件，也不是题集的 SET:KEY（`throughline questions list` "
                         "列出可用题集）",
        "no_set_db": "题集 {set} 中没有数据库 {key}（{known}）",
    },
}

# argparse's own messages (its gettext msgids, Python 3.11 to 3.13) in Chinese: what a
# mistyped command line is told before any command runs. A msgid not here stays English.
ARGPARSE_ZH: dict[str, str] = {
    "usage: ": "用法：",
    "%(prog)s: error: %(message)s\n": "%(prog)s：错误：%(message)s\n",
    "the following arguments are required: %s": "缺少必需的参数：%s",
    "unrecognized arguments: %s": "无法识别的参数：%s",
    "invalid choice: %(value)r (choose from %(choices)s)": "无效的选择：%(value)r（可选：%(choices)s）",
    "argument %(argument_name)s: %(message)s": "参数 %(argument_name)s：%(message)s",
    "expected one argument": "需要一个值",
    "expected at least one argument": "至少需要一个值",
    "expected at most one argument": "最多只能给一个值",
    "expected %s argument": "需要 %s 个值",
    "expected %s arguments": "需要 %s 个值",
    "invalid %(type)s value: %(value)r": "无效的 %(type)s 值：%(value)r",
    "not allowed with argument %s": "不能与参数 %s 同时使用",
    "ambiguous option: %(option)s could match %(matches)s": "有歧义的选项：%(option)s 可匹配 %(matches)s",
    "one of the arguments %s is required": "必须给出参数 %s 中的一个",
    "ignored explicit argument %r": "忽略了显式给出的值 %r",
    "can't open '%(filename)s': %(error)s": "无法打开 '%(filename)s'：%(error)s",
    "positional arguments": "位置参数",
    "options": "选项",
    "show this help message and exit": "显示此帮助信息并退出",
}

# `throughline sql`: its own refusals and SQLite's error (quoted as SQLite said it).
SQL = {
    "en": {"need_db": "--db: give a SQLite file or SET:KEY",
           "query_not_utf8": "the query is not valid UTF-8 (byte 0x{byte:02x} at character "
                             "{at}); SQLite takes UTF-8 text only",
           "db_error": "--db: {detail}",
           "sql_error": "SQL error: {detail}"},
    "zh": {"need_db": "--db：请给出 SQLite 文件或 SET:KEY",
           "query_not_utf8": "查询不是有效的 UTF-8 文本（第 {at} 个字符处的字节 0x{byte:02x}）；"
                             "SQLite 只接受 UTF-8 文本",
           "db_error": "--db：“{detail}”",
           "sql_error": "SQL 错误：“{detail}”"},
}

SECTIONS: dict[str, dict[str, dict[str, str]]] = {"run": RUN, "questions": QUESTIONS,
                                                  "compare": COMPARE, "errors": ERRORS,
                                                  "sql": SQL}


def engine_text(info, lang: str) -> str:
    """An endpoint's engine as a status line names it: "vllm", "simulated vllm"."""
    if info.simulated:
        return cli_text(lang, "run", "simulated_engine", engine=info.engine)
    return info.engine


def cli_text(lang: str, section: str, key: str, /, **values) -> str:
    """The entry `key` of `section` in `lang` (English where a language lacks it)."""
    return lookup(SECTIONS[section], lang, key, **values)
