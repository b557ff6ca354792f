"""Input the core refused (`core.parsing.InputError` with a code), in English or Simplified Chinese.

The core raises `InputError(field, code=..., **params)`; the CLI and the window put it
in the reader's language here. A field that is a flag (`--concurrency`) is said as it is typed;
a form field's name is translated. An error without a code (or with one this catalogue does not
know) keeps its English message: `input_error_text` never loses what the core said.
"""

from __future__ import annotations

from desktop_app.core.parsing import INPUT_MESSAGES, Phrase
from desktop_app.report.cli_words import ERRORS as CLI_ERRORS
from desktop_app.report.strings import lookup

# Messages by InputError.code: English is the core's own (`core.parsing.INPUT_MESSAGES`, one
# template for the exception's message and for the reader); every code the core raises has its
# Chinese here (tests/report/test_input_words.py checks the codes against the raise sites).
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "error": "{field}: {message}",
        **INPUT_MESSAGES,  # the core's own English message says the same
        **{f"cli_{k}": v for k, v in CLI_ERRORS["en"].items()},
    },
    "zh": {
        "error": "{field}：{message}",
        "empty_int_list": "请至少给出一个值，例如 1,2,4",
        "empty_float_list": "请至少给出一个值，例如 0.5,1,2",
        "empty": "请至少给出一个值",
        "one_value": "请只给出一个值",
        "route_tiers": "{item}：tier: 后请写难度，可选 {tiers}（例如 tier:hard,medium）",
        "route_unknown": "{item}：请选择 validate、always-loop 或 tier:<难度>（例如 tier:hard,medium）",
        "no_models_listed": "该端点未列出任何模型；请指定一个",
        "model_not_served": "{url} 不提供 {item}；它提供的是：{models}",
        "give_values": "请给出一个或多个值",
        "not_whole": "{item} 不是整数（示例：512、2048、4k）",
        "too_large": "{item} 太大",
        "below_min": "{item} 小于最小值 {low}",
        "above_max": "{item} 大于最大值 {high}",
        "not_number": "{item} 不是数字",
        "not_above": "{item} 必须是大于 {low:g} 的数字",
        "out_of_range": "{item} 必须是大于 {low:g} 且不超过 {high:g} 的数字",
        "out_of_range_s": "{item} 必须是大于 {low:g} 且不超过 {high:g} 秒的数字",
        "positive_at_most": "{item} 必须是不超过 {high:,.0f} 的正数",
        "whole_from_to": "{item} 必须是 {low:,} 到 {high:,} 之间的整数",
        "more_than": "{item} 超过了 {high:,}",
        "positive_seconds": "{item} 必须是正数（秒）",
        "negative": "{item} 不能为负数",
        "choose_model": "请选择一个模型（端点的 /v1/models 列出了可用模型）",
        "too_many_values": "{n:,} 个值：最多 {high:,} 个",
        "seconds_at_most": "{item} 必须是不超过 {high:g} 秒的正数",
        "out_of_bounds": "{item} 超出范围（{low:,} 到 {high:,}）",
        "need_input_tokens": "请给出要测试的提示长度，例如 512,2048",
        "not_requests_plan": "{item} 不是 'wave'、'sweep' 或数字",
        "cannot_write": "无法写入 {path}：{error}",
        "url_empty": "为空（例如 http://localhost:8000）",
        "url_space": "包含空格：{url}",
        "url_no_scheme": "{url} 缺少协议：请以 http:// 或 https:// 开头",
        "url_unreadable": "无法解析：{url}（{detail}）",
        "url_scheme": "{url} 中的协议 {scheme} 不受支持：请使用 http:// 或 https://",
        "url_no_host": "{url} 中没有主机名",
        "url_port": "{url} 中的端口无效",
        "url_query": "请去掉 {url} 中的查询参数或片段",
        "url_unusable": "无法使用：{url}（{detail}）",
        "said": "{text}",
        "no_run": "{path} 中没有运行 {run}",
        "set_key": "应为 KEY=VALUE，KEY 为 {keys} 之一（或某个引擎对它的叫法）",
        "set_not_number": "{text} 不是数字",
        "set_not_positive": "必须为正数",
        "set_whole": "{setting} 只接受整数",
        "unknown_choice": "未知的 {items}；可选：{choices}",
        "choose_from": "请从 {choices} 中选择",
        "at_least_one_judge": "请至少选择一个评判器",
        "not_negative_number": "{item} 必须是不小于 0 的数字",
        "name_a_set": "请给出内置题集名（例如 sales-25）或题集文件夹",
        "no_set": "{name}：那里没有题集（含 {file} 的文件夹）；可按名称使用的题集：{names}",
        "unknown_profile": "未知的模拟器配置 {name}（可用：{known}）",
        "profile_not_found": "找不到配置文件：{path}",
        "lengths_syntax": "{item} 不是长度：请写一个数（512、4k）、N(均值,标准差)、"
                          "N(均值,标准差,最小,最大)、U(最小,最大) 或 F(文件)",
        "lengths_bounds": "{item}：最小长度（{low}）大于最大长度（{high}）",
        "lengths_mean_outside": "{item}：均值不在其上下界内（{low} 到 {high}）",
        "lengths_file_line": "{path}:{line}：{item} 不是 1 到 {high} 之间的整数",
        "lengths_file_empty": "{path}：其中没有长度（每行一个整数）",
        "text_not_utf8": "{path}：不是 UTF-8 文本（字节偏移 {offset}）",
        "workload_empty": "{path}：这个 {format} 文件中没有可发送的记录（跳过 {skipped} 条；第一条：{first}）",
        "workload_unknown": "{path}：不是可识别的负载文件（ShareGPT JSON 列表、含 prompt 或 messages 的 "
                            "JSONL，或 Mooncake 轨迹）",
        "workload_untimed": "{path}：并非每条记录都有 timestamp：只能闭环回放，不能按其时间表回放",
        "workload_changed": "{path} 不是该运行回放的那个文件（其 SHA-256 开头为 {digest}）",
        "workload_one_process": "按时间表回放负载时只能从一个进程发送（--workers 1，不用 --ray）",
        "workload_skipped_line": "第 {line} 行：{why}",
        "replay_no_tasks": "运行 {run} 没有可回放的模型调用记录",
        "sessions_how": "多轮会话只能以闭环方式从一个进程发往聊天端点（--api chat、--concurrency、--workers 1；"
                        "不能用 --request-rate、--workload、--find-max 或 --ray）",
        "find_max_needs_target": "寻找最高负载需要一个目标：--ttft-target 或 --tpot-target",
        "find_max_one_shape": "寻找最高负载只测一种提示长度和一种输出长度（或闭环回放一个负载文件）",
        "resume_find_max": "运行 {run} 是在寻找最高负载；这样的搜索只能重新运行，不能续跑",
        "workload_skip_no_conversations": "没有 conversations 列表",
        "workload_skip_list_broken": "从这里起列表无法读取（不是 JSON，或文件被截断）",
        "workload_skip_no_exchange": "没有后接回复的用户发言",
        "workload_skip_too_long": "提示有 {chars:,} 个字符（最多 {high:,}）",
        "workload_skip_not_json": "不是 JSON",
        "workload_skip_not_object": "不是 JSON 对象",
        "workload_skip_no_prompt": "没有 prompt 或 messages",
        "workload_skip_bad_lengths": "input_length 和 output_length 必须是 1 到 {high:,} 的整数",
        "workload_skip_bad_timestamp": "timestamp {value} 不是从 0 起的毫秒数",
        "workload_skip_bad_hash_ids": "hash_ids 必须是最多 {high:,} 个整数的列表",
        "workload_skip_hash_ids_longer": "{input} 个输入 token 却有 {blocks} 个 hash id（每块 512 个 token）",
        "workload_skip_bad_messages": "messages 必须是由 {{role, content}} 文本组成的列表",
        "workload_skip_bad_max_tokens": "max_tokens {value} 不是 1 到 {high:,} 的整数",
        "fault_not_number": "故障 {item}：概率必须是数字",
        "fault_probability": "故障 {item}：概率必须在 0 与 1 之间",
        "fault_twice": "故障 {item}：{name} 给出了两次",
        "fault_option_value": "故障选项 {item}：需要一个值（{name}=...）",
        "fault_unknown": "{item} 中的故障 {name} 未知（可用：{known}）",
        "fault_sum": "故障概率之和为 {total}；每个请求至多遇到一种故障，因此概率之和不得超过 1",
        "fault_option_whole": "故障选项 {item}：必须是非负整数",
        "fault_option_number": "故障选项 {item}：必须是有限的非负数",
        "fault_header": "{header} 中的故障 {fault} 未知（可用：{known}、none）",
        "sim_port_in_use": "{host} 上的端口 {port} 已被占用",
        "sim_cannot_listen": "无法在 {host} 的端口 {port} 上监听：{detail}",
        "sim_not_started": "模拟器未能启动：{detail}",
        "sim_start_timeout": "模拟器未在 {seconds} 秒内启动",
        "sim_not_ready": "模拟器未在 {seconds} 秒内就绪{detail}",
        "sim_exited": "模拟器已退出，状态码 {status}{detail}",
        "profile_not_utf8": "{where}：不是 UTF-8 文本（第 {byte} 字节）",
        "profile_not_toml": "{where}：不是有效的 TOML：{detail}",
        "profile_unknown_key": "{where}：{key}：未知的键（可用：{known}）",
        "profile_not_integer": "{where}：{key}：必须是整数，实际为 {value}",
        "profile_not_number": "{where}：{key}：必须是数字，实际为 {value}",
        "profile_negative": "{where}：{key}：不能为负数，实际为 {value}",
        "profile_infinite": "{where}：{key}：必须是有限值，实际为 inf",
        "profile_not_string": "{where}：{key}：必须是字符串，实际为 {value}",
        "profile_not_positive": "{where}：{key}：必须为正数，实际为 {value}",
        "profile_len_over_cache": "{where}：{key}：max_model_len（{max_model_len}）不得超过 kv_cache_tokens（{kv_cache_tokens}）：那么长的请求永远无法被调度",
        "ray_not_installed": "未安装 Ray；请用 {install} 安装",
        "ray_import_failed": "无法导入 Ray（{detail}）；请用 {install} 重新安装",
        "ray_connect": "无法连接 {address} 上的 Ray：{detail}",
        "ray_not_ready": "{count} 个 Ray actor 未在 {seconds} 秒内就绪（{address} 上的集群是否还有空闲资源？）",
        "ray_actor_start": "有 Ray actor 未能启动（{detail}）；每个节点上都必须安装 throughline（{install}）",
        "ray_actor_failed": "{host} 上的 Ray actor {actor} 失败：{detail}",
        "worker_not_started": "工作进程 {pid} 未能启动：{detail}",
        "worker_failed": "工作进程 {pid} 失败：{detail}",
        "virtual_tokens_min": "输入和输出 token 数都至少为 1（实际为 {input}、{output}）",
        "virtual_over_len": "{input} + {output} 个 token 超过了配置 {profile} 的 max_model_len（{high}）",
        "virtual_over_cache": "{input} + {output} 个 token 放不进配置 {profile} 的 KV 缓存（{high} 个 token）",
        "worker_died": "工作进程 {pid} 意外退出（退出码 {status}）：{detail}",
        "settings_too_many": "给出了 {n} 项设置；最多 {high} 项",
        "setting_no_equals": "第 {position} 项设置 {item}：应为 KEY=VALUE，例如 max-num-seqs=2",
        "setting_empty_key": "第 {position} 项设置 {item}：'=' 前的键为空",
        "setting_bad_key": "第 {position} 项设置 {item}：键只能包含字母、数字、'-' 或 '_'",
        "setting_no_value": "第 {position} 项设置 {item}：'=' 后没有值",
        "setting_too_long": "第 {position} 项设置 {item}：值有 {size} 个字符；最多 {high} 个",
        "setting_twice": "第 {position} 项设置 {item}：{key_name} 给出了两次",
        "whole_at_least_1": "{item} 必须是不小于 1 的整数",
        "set_no_database": "题集 {set} 中没有数据库 {key_name}",
        "cannot_open_db": "无法打开数据库 {path}：“{detail}”",
        "no_question_matches": "{set} 中没有符合所选层级或题号的题目",
        "setting_type": "{key_name}：设置的值必须是文本或数字",
        "ray_not_text": "{item} 必须是地址文本",
        "ray_address": "{item} 必须是 auto、local、ray://host:10001 或 host:6379（不要带 user:password@）",
        "not_a_sweep_config": "保存的配置不是吞吐扫描的配置（键：{keys}）",
        "resume_not_throughput": "运行 {run} 的类型是 {kind}；续跑只适用于吞吐扫描（请重新运行评测）",
        "resume_completed": "运行 {run} 已完成，没有可续跑的部分",
        "resume_running": "运行 {run} 仍在进行（{host} 上的进程 {pid}）；请先停止它，或等它结束",
        "resume_status": "运行 {run} 的状态为 {status}，无法续跑",
        "resume_cell_mismatch": "运行 {run}：保存的单元 {cell}（输入 {input}，输出 {output}）与其配置不符",
        "resume_raced": "运行 {run} 在此期间已被另一个进程续跑或修改",
        "resume_no_url": "运行 {run} 没有保存端点 URL；请给出端点",
        "resume_other_engine": "运行 {run} 测的是 {engine} 端点；{url} 是 {now}",
        "fit_no_single": "扫描中没有并发 1 下完成的请求：没有它就无法把 Prefill 与排队区分开",
        "fit_no_decode": "并发 1 下没有生成两个及以上 token 的请求：无法拟合 Decode",
        "fit_no_cells": "扫描中没有包含请求的闭环单元",
        "file_missing": "文件不存在",
        "qs_file": "{path}：{problem}",
        "qs_set_file_missing": "{path}：文件不存在（应为每行一个 JSON 对象）",
        "qs_set_file_empty": "{path}：没有题目（应为每行一个 JSON 对象）",
        "qs_set_not_utf8": "{path}:{line}：不是 UTF-8 文本：字节偏移 {offset} 处为字节 0x{byte:02x}；"
                           "请把文件存为 UTF-8",
        "file_is_directory": "是文件夹，不是文件",
        "file_not_regular": "不是普通文件（{kind}）",
        "file_too_large": "共 {size:,} 字节，超过上限 {limit:,} 字节",
        "file_symlink_loop": "是符号链接的循环",
        "file_unreadable": "无法读取：“{reason}”",
        "file_outside_folder": "指向 {folder} 之外（{target}）；只读取其中的文件",
        "not_utf8": "第 {line} 行：不是 UTF-8 文本（偏移 {offset} 处的字节 0x{byte:02x}）；这是结果文件吗？",
        "empty_file": "是空文件",
        "json_too_deep": "JSON 嵌套过深，不可能是结果文件",
        "json_line_too_deep": "第 {line} 行：JSON 嵌套过深",
        "json_truncated": "第 {line} 行：JSON 未结束就到了文件末尾（文件被截断？）",
        "json_invalid": "第 {line} 行：不是有效的 JSON：“{detail}”",
        "not_sql_run": "运行 {run} 的类型是 {kind}，不是 SQL 评测",
        "import_not_json_or_csv": "第 1 行既不是 JSON 也不是 AIPerf 的 CSV（{first}）；不是本 "
                                  "Throughline 认识的工具（{tools}）的结果文件",
        "import_json_lines_unknown": "{n} 行 JSON，并非都是 vllm bench serve 结果或 AIPerf 记录；"
                                     "不是本 Throughline 认识的工具（{tools}）的结果文件",
        "import_json_keys_unknown": "含有 {keys} 的 JSON；不是本 Throughline 认识的工具（{tools}）"
                                    "的结果文件",
        "import_json_empty": "空的 JSON 对象；不是本 Throughline 认识的工具（{tools}）的结果文件",
        "json_list": "数组", "json_text": "字符串", "json_null": "null", "json_bool": "布尔值",
        "json_number": "数字",
        "import_json_kind": "JSON {kind}；不是本 Throughline 认识的工具（{tools}）的结果文件",
        "import_wrong_value": "看起来是 {label} 的结果，但含有不应出现的值（{detail}）",
        "import_own_export": "是 Throughline 的导出文件（其运行已在某个 Throughline 结果库中）；"
                             "导入只读取其他工具的结果",
        "import_newer_aiperf": "由 AIPerf {tool_version} 以导出格式 {version} 写出；本 Throughline "
                               "读取 AIPerf 导出格式 {known}.x。请升级 Throughline 后再导入。",
        "import_newer_guidellm": "由 GuideLLM {tool_version} 以报告格式版本 {version} 写出；本 "
                                 "Throughline 读取 GuideLLM 报告版本 {known}。请升级 Throughline "
                                 "后再导入。",
        "import_aiperf_bad_version": "AIPerf 的 schema_version {version} 不是版本号",
        "import_not_time_unit": "{tag}：单位 {unit} 不是时间单位",
        "import_not_rate_unit": "{tag}：单位 {unit} 不是 tokens/sec",
        "import_aiperf_no_metrics": "AIPerf 导出文件中没有任何指标（{tags}）",
        "import_csv_not_number": "第 {line} 行：{name}：{key} {cell} 不是数字",
        "import_aiperf_csv_no_metrics": "AIPerf 格式的 CSV 中没有任何 AIPerf 指标行",
        "import_aiperf_no_requests": "AIPerf 记录中没有正式测量阶段的请求",
        "import_guidellm_no_metrics": "GuideLLM 基准中没有 'metrics'",
        "import_guidellm_no_benchmarks": "GuideLLM 报告中没有任何基准",
        "import_not_number": "{key} 应为数字，而不是 {value}",
        "import_list_length": "{key} 应像 'ttfts' 一样列出 {n} 个请求",
        "import_not_vllm_result": "第 {number} 个结果不是 vllm bench serve 的结果（没有 'completed' "
                                  "和 'mean_ttft_ms'）",
        "import_implausible": "{place}：{key} 为 {value}，{why}；文件已损坏或与其声称的不符，"
                              "未导入任何内容",
        "place_result": "第 {result} 个结果",
        "place_request": "第 {result} 个结果的第 {request} 个请求",
        "why_not_finite": "不是有限数",
        "why_negative": "为负数",
        "why_beyond": "超过 {high:g}，任何基准都测不到",
        "why_too_many_tokens": "超过任何请求都不会有的 {high:,} 个 token",
        "tools_or": "{first} 或 {last}",
        "prompt_salt_range": "请求序号 {index} 超出了盐值范围（0..{high}）。",
        "prompt_at_least_1": "提示长度至少为 1 个 token（给出的是 {target}）。",
        "prompt_no_fit": "{target} 个 token 的提示放不下：服务器的上下文是 {limit} 个 token，"
                         "要容纳提示和至少一个输出 token。",
        "prompt_too_short": "{target} 个 token 的提示太短：在这台服务器上仅{what}就占 {base} 个 "
                            "token。",
        "what_salt": "每个请求的盐值", "what_server_adds": "服务器附加的内容",
        "what_salt_chat": "每个请求的盐值和对话模板",
        "what_server_adds_chat": "服务器附加的内容和对话模板",
        "prompt_shortest": "{target} 个 token 的提示对这台服务器太短：这里能构造的最短提示有 "
                           "{shortest} 个 token。",
        "prompt_not_within": "无法在 1 % 误差内构造 {target} 个 token 的提示：最接近的是 "
                             "{tokens} 个 token。",
        "prompt_no_token_list": "无法构造 {target} 个 token 的提示：分词器的回答里没有 token 列表。",
        "prompt_no_usage": "无法构造 {target} 个 token 的提示：服务器的回答里没有可用于校准的 "
                           "usage.prompt_tokens。",
        "prompt_ask_failed": "无法构造 {target} 个 token 的提示：{url} 上的{what}失败（{detail}）。",
        "prompt_ask_http": "无法构造 {target} 个 token 的提示：{url} 上的{what}返回 HTTP "
                           "{status}：{body}",
        "prompt_ask_too_deep": "无法构造 {target} 个 token 的提示：{url} 上的{what}返回的 JSON "
                               "嵌套超过 {limit} 层。",
        "prompt_ask_not_json": "无法构造 {target} 个 token 的提示：{url} 上的{what}没有返回 JSON。",
        "prompt_ask_shape": "无法构造 {target} 个 token 的提示：{url} 上的{what}返回了意外的结构。",
        "prompt_impossible_count": "无法构造 {target} 个 token 的提示：{what}返回了不可能的 token "
                                   "数（{count}）。",
        "asker_tokenizer": "分词器", "asker_calibration": "校准请求",
        "exceeds_context": "{input} + {output} 个输出 token 超出了服务器 {limit} 个 token 的上下文",
        "sweep_not_utf8": "不是 UTF-8 文本",
        "toml_syntax": "TOML 语法错误：{detail}",
        "sweep_too_deep": "嵌套过深，不像是测试配置文件",
        "sweep_api_key": "API 密钥不能写在文件里；请用 --api-key-env",
        "sweep_unknown_key": "未知的键（可用：{known}）",
        "sweep_key_type": "应为{kind}，实际是 {value}",
        "kind_text": "字符串", "kind_api": ' "chat" 或 "completions" ',
        "kind_http_client": ' "lean" 或 "httpx" ',
        "kind_whole_list": '整数、整数列表或 "512,4k" 这样的文本',
        "kind_number_list": "数字或数字列表", "kind_whole": "整数",
        "kind_number": "数字", "kind_bool": " true 或 false ",
        "qs_not_spider2": "{source}:1：不是 Spider2-lite 记录（没有 instance_id）；请用 "
                          "{format_flag} 指明格式",
        "qs_not_json": "{source}：不是 JSON；请用 {format_flag} 指明格式",
        "qs_unknown_format": "{source}：无法判断格式（应为 Spider 或 BIRD 的列表、Spider2-lite 的 "
                             "JSONL 或 defog 的 CSV）；请用 {format_flag} 指明",
        "qs_format": "--format：{item} 不是 {choices} 之一",
        "qs_out_not_empty": "--out：{path} 已存在且不是空文件夹；请换一个 --out 或先删除它",
        "qs_not_utf8": "{path}：不是 UTF-8 文本（字节偏移 {offset}）",
        "qs_json_invalid": "{source}:{line}：不是有效的 JSON：{detail}",
        "qs_json_too_deep": "{source}：不是有效的 JSON：嵌套过深",
        "qs_not_a_list": "{source}：应为题目的 JSON 列表",
        "qs_missing_columns": "{source}:1：缺少列：{columns}",
        "qs_no_db_name": "{source}：没有哪一行的 db_name 是 {db_name}",
        "qs_bad_name": "--name：{item} 不是题集名：最多 100 个字母、数字、'.'、'_' 和 '-'，"
                       "且不以 '.' 或 '-' 开头",
        "qs_need_db_dir": "{db_flag}：{format} 需要它（存放 <db>/<db>.sqlite 或 <db>.sqlite 的文件夹）",
        "qs_no_db_dir": "{db_flag}：没有这个文件夹：{path}",
        "qs_nothing_imported": "{source}：没有可导入的题目（跳过了 {n} 条记录）",
        "export_format": "{item} 不是 {choices} 之一",
        "export_kind": "运行 {run} 是 {kind} 运行；只能导出吞吐量运行和 SQL 运行",
        "export_cannot_read": "无法从 {path} 读取运行 {run}：{detail}",
        "out_is_file": "{path} 是文件，不是文件夹",
        "out_cannot_create": "无法创建 {path}：{error}",
        "out_not_writable": "{path} 不可写入",
        **{f"cli_{k}": v for k, v in CLI_ERRORS["zh"].items()},
    },
}

# The core's names of form fields (the `field` of an InputError that is not a flag), as the
# window's labels say them.
FIELDS: dict[str, dict[str, str]] = {
    "en": {},
    "zh": {
        "base URL": "基础 URL",
        "endpoint": "端点",
        "HTTP client": "HTTP 客户端",
        "judges": "评判器",
        "language": "语言",
        "layered route": "分层路线",
        "question ids": "题号",
        "questions": "题集",
        "retries": "重试次数",
        "tiers": "层级",
        "tolerance": "容差",
        "tool mode": "工具调用方式",
        "max steps": "最大步数",
        "epochs": "轮数",
        "max tokens": "最大 token 数",
        "SQL time limit": "SQL 时间限制",
        "ray": "Ray 地址",
        "run": "运行",
        "input tokens": "提示长度",
        "output tokens": "输出 token 数",
        "concurrency": "并发数",
        "requests per cell": "每个单元的请求数",
        "time budget per cell": "每个单元的时间预算",
        "server settings": "服务器设置",
        "request rate": "请求速率",
        "warm-up requests": "预热请求数",
        "connect timeout": "连接超时",
        "first-byte timeout": "首字节超时",
        "request timeout": "请求超时",
        "TTFT target": "TTFT 目标",
        "TPOT target": "TPOT 目标",
        "metrics interval": "指标采集间隔",
        "model": "模型",
        "workers": "负载生成进程数",
        "time limit": "时间限制",
        "max rows": "最大行数",
        "workload": "负载文件",
        "speed-up": "加速倍数",
        "turns": "每个会话的轮数",
        "think time": "思考时间",
        "system tokens": "共享系统提示",
        "find max": "寻找最高负载",
        "SLO share": "满足目标的比例",
        "max concurrency": "最高并发数",
    },
}


def field_text(field: str, lang: str) -> str:
    """A field's name in `lang`: a flag as typed, a form field as its label says it."""
    return FIELDS.get(lang, {}).get(field, field)


def input_error_text(exc: Exception, lang: str = "en") -> str:
    """`exc` in `lang`: an InputError's code in words, naming its field; any other error (or an
    InputError without a known code) as its own message."""
    code = getattr(exc, "code", "")
    if not code or code not in WORDS["en"] or not hasattr(exc, "field"):
        return str(exc)
    message = lookup(WORDS, lang, code, **worded_params(exc.params, lang))
    return lookup(WORDS, lang, "error", field=field_text(exc.field, lang), message=message)


# What kind of file a path is that is not a regular one (`core.files`' `kind` codes).
KINDS = {"en": {"fifo": "named pipe (FIFO)", "device": "device", "socket": "socket",
                "special": "special file"},
         "zh": {"fifo": "命名管道（FIFO）", "device": "设备文件", "socket": "套接字",
                "special": "特殊文件"}}


def worded_params(params: dict, lang: str) -> dict:
    """`params` with the values that are codes of words in `lang`: a file's kind, and a
    `Phrase` (a part of the message said by its own code)."""
    out = dict(params)
    kind = params.get("kind")
    if isinstance(kind, str) and kind in KINDS["en"]:
        out["kind"] = KINDS.get(lang, KINDS["en"])[kind]
    for key, value in params.items():
        if isinstance(value, Phrase):
            out[key] = lookup(WORDS, lang, value.code, **worded_params(value.params, lang))
    return out
