"""The commands' --help in Simplified Chinese, keyed by the English each command's module
gives argparse (as gettext keys a catalogue by its message): `translate_help` puts them in the
parser before it prints (cli/help_format.py wraps them by terminal columns).
tests/cli/test_cli_help_words.py checks that every help text of every command has an entry
here and that every entry is still one."""

from __future__ import annotations

import argparse

__all__ = ["HELP_ZH", "help_texts", "parsers", "translate_help"]

HELP_ZH: dict[str, str] = {
    'Benchmark LLM serving endpoints for speed (throughput sweeps) and quality (agentic text-to-SQL evaluation). Without a subcommand, starts the desktop app. --db and --lang may be given before the command or after it.':
        '为 LLM 推理服务端点做基准测试：速度（吞吐扫描）与质量（智能体式文本到 SQL 评测）。不带子命令时启动桌面应用。--db 和 --lang 可写在命令之前或之后。',
    'Headless commands work without a display, e.g.:\n  throughline demo --out demo                       the whole product on the simulator (~2 min)\n  throughline sim --profile fast --port 8000        serve the built-in simulated endpoint\n  throughline whatif --profile seed-reference --input-tokens 2k,32k --concurrency 1,2,4,6\n  throughline throughput --simulator fast --input-tokens 512,2k --concurrency 1,4\n  throughline sqleval --simulator fast --model sim/seed-reference --json out.json\n  throughline sql --db sales-25:sales "SELECT COUNT(*) FROM orders"\n  throughline runs                                  list stored runs\n  throughline compare --runs 3,4                    two runs side by side, verdicts on noise\n  throughline export --run 12 --format csv --out results   a run as CSV (or json)\n  throughline import profile_export_aiperf.json     store AIPerf/vLLM/GuideLLM results\n  throughline resume 12 --simulator fast            finish interrupted sweep 12\n':
        '无界面命令无需显示器即可运行，例如：\n  throughline demo --out demo                       在模拟器上走完整个产品（约 2 分钟）\n  throughline sim --profile fast --port 8000        运行内置模拟端点\n  throughline whatif --profile seed-reference --input-tokens 2k,32k --concurrency 1,2,4,6\n  throughline throughput --simulator fast --input-tokens 512,2k --concurrency 1,4\n  throughline sqleval --simulator fast --model sim/seed-reference --json out.json\n  throughline sql --db sales-25:sales "SELECT COUNT(*) FROM orders"\n  throughline runs                                  列出已保存的运行\n  throughline compare --runs 3,4                    并排比较两次运行，结论考虑噪声\n  throughline export --run 12 --format csv --out results   把一次运行导出为 CSV（或 json）\n  throughline import profile_export_aiperf.json     保存 AIPerf/vLLM/GuideLLM 的结果\n  throughline resume 12 --simulator fast            续跑中断的扫描 12\n',
    'print the versions of Throughline, Qt, PySide6 and Python, and exit':
        '打印 Throughline、Qt、PySide6 和 Python 的版本后退出',
    'results database (default: $THROUGHLINE_DB, else the user data folder)':
        '结果数据库（默认：$THROUGHLINE_DB，否则为用户数据文件夹）',
    'language of the words (default: $THROUGHLINE_LANG, else en)':
        '文字的语言（默认：$THROUGHLINE_LANG，否则为 en）',
    'start the desktop app (the default)':
        '启动桌面应用（默认）',
    'serve the built-in simulated endpoint in the foreground':
        '在前台运行内置模拟端点',
    'what a sweep would measure on a simulator profile, in virtual time':
        '在虚拟时间里推算一次扫描在某个模拟器配置上会测到什么',
    'run a throughput sweep against an endpoint (or the built-in simulator)':
        '对一个端点（或内置模拟器）运行吞吐扫描',
    'finish an interrupted (or cancelled) throughput sweep into the same run':
        '把中断（或取消）的吞吐扫描续跑完，结果仍记入同一次运行',
    'evaluate a model as a text-to-SQL agent on a question set':
        '在一个问题集上把模型作为文本到 SQL 智能体来评测',
    'judge a stored SQL run again (no model is called)':
        '重新评判一次已保存的 SQL 运行（不调用模型）',
    'run one read-only query in the SQL sandbox and print the result':
        '在 SQL 沙箱里执行一条只读查询并打印结果',
    'judge one SQL answer against a gold query on a SQLite database':
        '在 SQLite 数据库上，对照标准查询评判一个 SQL 答案',
    'run a small demo on the built-in simulator and write its runs, PDF and exports':
        '在内置模拟器上运行一个小型演示，写出其运行、PDF 和导出文件',
    'write a stored run as CSV or JSON files':
        '把一次已保存的运行写成 CSV 或 JSON 文件',
    'store a vllm bench serve, AIPerf or GuideLLM result file as a run':
        '把 vllm bench serve、AIPerf 或 GuideLLM 的结果文件保存为一次运行',
    'write the comparison PDF of two or more stored runs':
        '为两次或更多已保存的运行写出比较 PDF',
    'compare two or more stored runs in the terminal (or as JSON)':
        '在终端里（或以 JSON）比较两次或更多已保存的运行',
    'import, list, show and check question sets':
        '导入、列出、查看和检查问题集',
    'list the simulator profiles':
        '列出模拟器配置',
    'list stored runs':
        '列出已保存的运行',
    'profile of the built-in simulated endpoint the app starts with (default: fast)':
        '应用启动时所用内置模拟端点的配置（默认：fast）',
    'run a small sweep and two SQL evaluations on the built-in simulator (profile instant; results in a throwaway database unless --db is given), save a PNG of every page into DIR, print the paths and exit; works offscreen (QT_QPA_PLATFORM=offscreen)':
        '在内置模拟器上运行一次小型扫描和两次 SQL 评测（配置 instant；除非给出 --db，结果存入临时数据库），把每个页面存成 PNG 到 DIR，打印路径后退出；可在无界面下运行（QT_QPA_PLATFORM=offscreen）',
    "with --screenshots, the window's size in pixels (default: 1280x800)":
        '配合 --screenshots：窗口大小（像素，默认 1280x800）',
    "language of the window this time (default: the one chosen in the app's Settings menu, at first the system's)":
        '本次窗口的语言（默认：应用“设置”菜单中选定的语言，初次为系统语言）',
    'address to bind (default: 127.0.0.1)':
        '绑定的地址（默认：127.0.0.1）',
    'port (default: 8000; 0 = any free)':
        '端口（默认：8000；0 表示任一空闲端口）',
    'simulator profile name or .toml path':
        '模拟器配置名或 .toml 路径',
    "inject faults, e.g. 'reset=0.1,http429=0.05,seed=7' (see docs/SIMULATOR.md)":
        "注入故障，例如 'reset=0.1,http429=0.05,seed=7'（见 docs/SIMULATOR.md）",
    'profile name or .toml path':
        '配置名或 .toml 路径',
    'wave (default): each client sends one request, all at once, as the seed reports measured; sweep: closed loop of max(4 x concurrency, 8) requests like the throughput sweep; N: closed loop of N requests per cell':
        'wave（默认）：每个客户端同时发出一个请求，与种子报告的测法相同；sweep：与吞吐扫描一样的闭环，共 max(4 x 并发数, 8) 个请求；N：每个单元 N 个请求的闭环',
    'also write every metric as JSON':
        '同时把所有指标写成 JSON',
    'fit the engine model to this stored sweep instead of a profile, print how well it fits, and (with --set) what a change would do':
        '不用配置，而是把引擎模型拟合到这次已保存的扫描上，打印拟合程度，并（配合 --set）推算改动的效果',
    "with --from-run: max_num_seqs=4, max_num_batched_tokens=8192, kv_capacity=x1.5 (SGLang's and llama.cpp's names work too); repeatable":
        '配合 --from-run：max_num_seqs=4、max_num_batched_tokens=8192、kv_capacity=x1.5（SGLang 和 llama.cpp 的名称也可用）；可重复',
    'Sweep prompt length x concurrency (or request rate) x output length against an OpenAI-compatible endpoint; prints the cell table and the diagnosis, stores every request, and writes JSON with --json.':
        '对一个 OpenAI 兼容端点扫描 提示长度 x 并发数（或请求速率）x 输出长度；打印单元表和诊断，保存每个请求，并用 --json 写出 JSON。',
    'endpoint':
        '端点',
    'sweep':
        '扫描',
    'server root or its /v1':
        '服务器根地址或其 /v1',
    'start the built-in simulated endpoint with this profile instead':
        '改为以此配置启动内置模拟端点',
    "model name (default: the endpoint's first model)":
        '模型名（默认：端点列出的第一个模型）',
    'environment variable holding the API key (never stored)':
        '存放 API 密钥的环境变量（密钥从不保存）',
    'do not verify TLS certificates':
        '不校验 TLS 证书',
    'seconds to connect (default 10)':
        '连接的秒数上限（默认 10）',
    'longest silence: before the first byte and between reads (default 600)':
        '最长静默时间：首字节之前以及两次读取之间（默认 600）',
    'one request, start to end, at most (default 3600)':
        '单个请求从开始到结束的时间上限（默认 3600）',
    'read the options from a file':
        '从文件读取选项',
    'prompt lengths, e.g. 512,2k; or distributions each request draws from: N(mean,sd), '
    'N(mean,sd,min,max), U(min,max), F(file)':
        '提示长度，例如 512,2k；或每个请求从中抽取长度的分布：N(均值,标准差)、'
        'N(均值,标准差,最小,最大)、U(最小,最大)、F(文件)',
    'replay a workload file instead of the length axes: ShareGPT JSON, a JSONL of prompt or '
    'messages (and max_tokens), or a Mooncake trace; one cell per concurrency':
        '回放一个负载文件，代替长度轴：ShareGPT JSON、含 prompt 或 messages（及 max_tokens）的 '
        'JSONL，或 Mooncake 轨迹；每个并发数一个单元',
    'with --workload: send each record at its own timestamp, in one cell, and report how late '
    'each send was':
        '配合 --workload：按每条记录自己的时间戳发送，放在一个单元里，并报告每次发送晚了多少',
    'with --on-schedule: replay the trace X times faster (default 1)':
        '配合 --on-schedule：以 X 倍速回放轨迹（默认 1）',
    'search concurrency for the highest load at which --slo-share of the requests meet '
    '--ttft-target/--tpot-target, instead of sweeping --concurrency':
        '搜索并发数，找出仍有 --slo-share 比例的请求满足 --ttft-target/--tpot-target 的最高负载，'
        '代替扫描 --concurrency',
    'with --find-max: the share of requests that must meet the targets (default 0.9)':
        '配合 --find-max：必须满足目标的请求比例（默认 0.9）',
    'with --find-max: the highest concurrency tried (default 1024)':
        '配合 --find-max：尝试的最高并发数（默认 1024）',
    'multi-turn sessions: each of --concurrency conversations sends N turns of --input-tokens '
    'new tokens, each reply in the next turn\'s history (chat API)':
        '多轮会话：--concurrency 个对话各发送 N 轮、每轮 --input-tokens 个新 token，每次回复都进入下一轮的'
        '历史（聊天 API）',
    'with --turns: seconds between a reply and the next turn (default 0)':
        '配合 --turns：收到回复到发送下一轮之间的秒数（默认 0）',
    'with --turns: a system prompt of N tokens shared by a cell\'s sessions (default none)':
        '配合 --turns：一个单元内所有会话共用的 N 个 token 的系统提示（默认没有）',
    'replay a stored SQL evaluation\'s conversations as load, as --sessions concurrent agents, '
    'and report tasks per hour':
        '把已保存的 SQL 评测中的对话作为负载回放，以 --sessions 个并发智能体发送，并报告每小时完成的任务数',
    'with --replay-eval: the capacity model\'s tasks per hour from this stored sweep of the '
    'same server, beside each measured figure':
        '配合 --replay-eval：用同一服务器的这次已保存扫描得到容量模型的每小时任务数，放在每个实测值旁边',
    'with --replay-eval: concurrent agents, e.g. 1,4,8 (default 1)':
        '配合 --replay-eval：并发智能体数，例如 1,4,8（默认 1）',
    'requests in flight, e.g. 1,2,4':
        '同时在途的请求数，例如 1,2,4',
    'open loop instead: Poisson arrivals per second, e.g. 0.5,1,2':
        '改用开环：每秒泊松到达数，例如 0.5,1,2',
    'output lengths (default 128); distributions as for --input-tokens':
        '输出长度（默认 128）；可写分布，写法同 --input-tokens',
    'measured requests per cell (default max(4 x concurrency, 8))':
        '每个单元计入测量的请求数（默认 max(4 x 并发数, 8)）',
    'warm-up requests (default 2)':
        '预热请求数（默认 2）',
    'seconds per cell at most: requests still in flight then are cut':
        '每个单元的秒数上限：届时仍在途的请求被截断',
    'goodput: TTFT target':
        '有效吞吐（goodput）：TTFT 目标',
    'goodput: TPOT target':
        '有效吞吐（goodput）：TPOT 目标',
    'identical prompts per length (measures prefix-cache hits)':
        '同一长度用相同的提示（用于测量前缀缓存命中）',
    'do not scrape /metrics':
        '不抓取 /metrics',
    'a name for the run':
        '运行的名称',
    'a note kept with the run':
        '随运行保存的备注',
    "load-generating processes a cell's streams are spread over (default: CPU count minus one, at least 1; 1 = this process); with --ray, Ray actors (default: each node's CPUs minus one)":
        '一个单元的流分摊到的发压进程数（默认：CPU 数减一，至少 1；1 表示本进程）；配合 --ray 时为 Ray actor 数（默认：每个节点的 CPU 数减一）',
    "send from the actors of a Ray cluster: auto, local, ray://HOST:10001 or HOST:6379 (needs pip install 'throughline[ray]'; see docs/PERFORMANCE.md)":
        "从 Ray 集群的 actor 发送请求：auto、local、ray://HOST:10001 或 HOST:6379（需要 pip install 'throughline[ray]'；见 docs/PERFORMANCE.md）",
    'how streams are received: the lean HTTP/1.1 path (default) or httpx (always used through a proxy)':
        '流的接收方式：精简的 HTTP/1.1 路径（默认）或 httpx（经代理时总用 httpx）',
    'a server setting the engine does not report, e.g. --setting max-num-seqs=2; recorded with the run':
        '引擎未报告的服务器设置，例如 --setting max-num-seqs=2；随运行记录',
    'write every figure as JSON':
        '把所有数字写成 JSON',
    'do not keep the run in the store':
        '不把运行保存到结果库',
    "Finish a throughput run that was interrupted (the process died), cancelled or failed: finished cells are kept, the cell that was cut is run again from scratch, the missing cells run, and the diagnosis is recomputed over every cell. The sweep's settings come from the stored run; the endpoint is the stored URL unless --base-url or --simulator says otherwise (stored URLs have credentials removed; the API key is never stored, so give --api-key-env again).":
        '续跑中断（进程退出）、取消或失败的吞吐运行：已完成的单元保留，被截断的单元从头重跑，缺少的单元补跑，诊断按全部单元重新计算。扫描设置取自已保存的运行；端点为保存的 URL，除非 --base-url 或 --simulator 另行指定（保存的 URL 已去掉凭据；API 密钥从不保存，请再次给出 --api-key-env）。',
    'the run (see `throughline runs`)':
        '运行（见 `throughline runs`）',
    'send to this server instead':
        '改为发送到此服务器',
    'start the built-in simulated endpoint with this profile':
        '以此配置启动内置模拟端点',
    'Run the SQL agent (tools: list_tables, describe_table, run_sql, submit_answer) on every question of a set, judge each answer (strict, tolerant, full), print the per-tier table, store every step, and write JSON with --json.':
        '在问题集的每道题上运行 SQL 智能体（工具：list_tables、describe_table、run_sql、submit_answer），评判每个答案（strict、tolerant、full），打印按难度分层的表，保存每一步，并用 --json 写出 JSON。',
    'evaluation':
        '评测',
    'start the built-in simulated endpoint with this profile instead (its SQL personas: --model sim/careful or sim/seed-reference)':
        '改为以此配置启动内置模拟端点（其 SQL 角色：--model sim/careful 或 sim/seed-reference）',
    "a bundled set's name or a set folder (default: sales-25)":
        '内置问题集的名称或问题集文件夹（默认：sales-25）',
    'only these tiers, e.g. hard or easy,medium':
        '只用这些难度，例如 hard 或 easy,medium',
    'only these question ids, e.g. t01,h03':
        '只用这些题号，例如 t01,h03',
    "judges to summarise, from strict,tolerant,full,test-suite,bird,spider2 (default: strict, tolerant and full; on a set imported from a public benchmark, full with names ignored and that benchmark's own rule: spider2, bird or test-suite, with the questions where it and full disagree listed). Full compares columns in the gold's order, by choice: test-suite's rule takes them in any order":
        '汇总的评判器，可选 strict,tolerant,full,test-suite,bird,spider2（默认：strict、tolerant 和 full；对从公开基准导入的问题集，为忽略列名的 full 加上该基准自己的规则：spider2、bird 或 test-suite，并列出它与 full 结论不同的题目）。full 按标准答案的列顺序比较，这是有意的选择：test-suite 的规则不计列的顺序',
    'numeric tolerance of the tolerant and full judges (default 1e-6; relative above 1, absolute below). The rounding the question requires is applied BEFORE the tolerance, so a tolerance of 0, 1e-2 or 1 can all give the same count':
        'tolerant 和 full 评判器的数值容差（默认 1e-6；大于 1 的数按相对值，小于 1 的按绝对值）。题目要求的四舍五入先于容差执行，因此容差为 0、1e-2 或 1 可能得到相同的计数',
    'the full judge ignores column names (default: only on a set whose questions do not name their columns)':
        'full 评判器忽略列名（默认：仅在题目未指明列名的问题集上）',
    "format-guard,examples,glossary,validate-retry,layered (default: none). layered: one request without tools first (the fast path), the tool loop only when that answer fails the harness's checks":
        'format-guard,examples,glossary,validate-retry,layered（默认：不用）。layered：先发一次不带工具的请求（快速路径），只有该答案未通过评测框架的检查时才进入工具循环',
    'with --strategy layered: validate (default: the tool loop only when the fast answer fails the checks), tier:hard,medium (those tiers go straight to the tool loop) or always-loop':
        '配合 --strategy layered：validate（默认：快速答案未通过检查时才进入工具循环）、tier:hard,medium（这些难度直接进入工具循环）或 always-loop',
    'model calls per question at most (default 20)':
        '每道题最多调用模型的次数（默认 20）',
    'prompt + completion tokens per question at most (default: no limit)':
        '每道题的提示 + 生成 token 上限（默认：不限）',
    'wall time per question in seconds (default 600)':
        '每道题的墙钟时间上限，单位秒（默认 600）',
    'time limit of each query in the sandbox (default 5)':
        '沙箱中每条查询的时间上限（默认 5）',
    'questions at once (default 1)':
        '同时进行的题目数（默认 1）',
    'run every question K times; reports the spread (default 1)':
        '每道题运行 K 次；报告其离散程度（默认 1）',
    "retry a model call that failed transiently (no answer, 429, 5xx) up to N times, backing off 1 s, 2 s, 4 s ... and at least the server's Retry-After (default 0: a fault ends the question where it happened)":
        '模型调用因暂时性故障失败（无应答、429、5xx）时最多重试 N 次，退避 1 s、2 s、4 s……且不少于服务器的 Retry-After（默认 0：故障在哪里发生，该题就在哪里结束）',
    'the language the questions are asked in (default en); --lang sets the language of the printed words':
        '提问所用的语言（默认 en）；--lang 决定打印文字的语言',
    'native tool calls, or text: the answer is a fenced ```sql block':
        '原生工具调用，或 text：答案是一个 ```sql 代码块',
    'write every verdict as JSON':
        '把每个结论写成 JSON',
    "Re-run a stored SQL run's final queries in the sandbox and judge them again, e.g. at another tolerance; the new verdicts replace the stored ones.":
        '在沙箱里重新执行一次已保存 SQL 运行的最终查询并重新评判，例如换一个容差；新结论替换已保存的结论。',
    "judges to summarise, from strict,tolerant,full,test-suite,bird,spider2 (default: the set's, as sqleval chooses them)":
        '汇总的评判器，可选 strict,tolerant,full,test-suite,bird,spider2（默认：该问题集的评判器，与 sqleval 的选择相同）',
    "Run one query the way the SQL agent's run_sql tool does: read-only, one statement, interrupted at the time limit. Writes, ATTACH, PRAGMA writes and extension loading are refused with the reason.":
        '按 SQL 智能体的 run_sql 工具的方式执行一条查询：只读、单条语句、到时间上限即中断。写入、ATTACH、写入型 PRAGMA 和加载扩展都会被拒绝并说明原因。',
    "a SQLite file, or a question set's database as SET:KEY (e.g. sales-25:sales)":
        'SQLite 文件，或以 SET:KEY 表示的问题集数据库（例如 sales-25:sales）',
    'the query, e.g. "SELECT count(*) FROM orders"':
        '查询，例如 "SELECT count(*) FROM orders"',
    'interrupt the query after S seconds (default 5)':
        'S 秒后中断查询（默认 5）',
    'rows to print (default 50); the total is still counted':
        '打印的行数（默认 50）；总行数照常统计',
    'Run a gold query and a candidate query in the read-only sandbox and judge the candidate under one judge (strict by default), with the verdict of every judge as a counterfactual. Exit 0 whether or not it passes; 2 when it cannot judge.':
        '在只读沙箱中执行标准查询和候选查询，用一个评判器（默认 strict）评判候选答案，并附上每个评判器的结论作为对照。无论是否通过都以 0 退出；无法评判时以 2 退出。',
    'the SQLite database':
        'SQLite 数据库',
    'the reference query':
        '标准（参考）查询',
    'the answer to judge':
        '要评判的答案',
    'the question asks for column COL rounded to N decimals (repeatable)':
        '题目要求列 COL 保留 N 位小数（可重复）',
    'the question asks for an order (full then checks it)':
        '题目要求排序（此时 full 会检查顺序）',
    'the judge (default strict)':
        '评判器（默认 strict）',
    'the full judge ignores column names':
        'full 评判器忽略列名',
    'numeric tolerance of tolerant and full (default 1e-6; relative above 1, absolute below). The rounding the question requires (--round) is applied BEFORE the tolerance, so a tolerance of 0, 1e-2 or 1 can all give the same verdict':
        'tolerant 和 full 的数值容差（默认 1e-6；大于 1 的数按相对值，小于 1 的按绝对值）。题目要求的四舍五入（--round）先于容差执行，因此容差为 0、1e-2 或 1 可能得到相同的结论',
    'write the verdict as JSON':
        '把结论写成 JSON',
    'seconds each query may run (default 5)':
        '每条查询可运行的秒数（默认 5）',
    'Start the built-in simulator, sweep a capped (max 2 sequences) and an uncapped simulated server, evaluate two scripted SQL personas, and write the results database, a comparison PDF and CSV/JSON exports of every run into DIR. Needs no GPU and no set-up; takes about a minute or two.':
        '启动内置模拟器，扫描一个有上限（最多 2 个序列）和一个无上限的模拟服务器，评测两个脚本化的 SQL 角色，并把结果数据库、比较 PDF 以及每次运行的 CSV/JSON 导出写入 DIR。无需 GPU，无需配置；约需一两分钟。',
    'folder for the results (created if missing; must not hold a demo yet)':
        '存放结果的文件夹（不存在则创建；其中不能已有演示）',
    "Write a stored run into a folder: throughput runs as per-cell and per-request CSV files or one JSON (with vllm bench serve's result keys where the metric is the same); SQL runs as per-question and per-step CSV files or one JSON. Field names are listed in docs/EXPORTS.md.":
        '把一次已保存的运行写入文件夹：吞吐运行写成按单元和按请求的 CSV 文件或一个 JSON（指标相同之处沿用 vllm bench serve 的结果键名）；SQL 运行写成按题目和按步骤的 CSV 文件或一个 JSON。字段名见 docs/EXPORTS.md。',
    "the run's id (see `throughline runs`)":
        '运行的编号（见 `throughline runs`）',
    'csv or json':
        'csv 或 json',
    'folder to write into (created if missing)':
        '写入的文件夹（不存在则创建）',
    "Read a result file written by `vllm bench serve --save-result`, AIPerf (profile_export_aiperf.json or .csv) or GuideLLM (benchmarks.json); the tool is detected from the content. The file becomes a throughput run that compares with Throughline's own; metrics the file lacks are stored as missing, never estimated.":
        '读取 `vllm bench serve --save-result`、AIPerf（profile_export_aiperf.json 或 .csv）或 GuideLLM（benchmarks.json）写出的结果文件；工具由内容识别。该文件成为一次可与 Throughline 自己的运行比较的吞吐运行；文件中缺少的指标记为缺失，从不估算。',
    'the result file':
        '结果文件',
    'Compare two or more stored runs (throughput sweeps, SQL evaluations or both) side by side and write a PDF: cover, side-by-side table with verdicts, speed and quality together (capacity in tasks), charts, diagnosis, failed questions, metric definitions. Works without a display.':
        '并排比较两次或更多已保存的运行（吞吐扫描、SQL 评测或两者兼有）并写出 PDF：封面、带结论的并排表格、速度与质量合看（以任务计的容量）、图表、诊断、失败的题目、指标定义。无需显示器。',
    'run ids to compare, as `throughline runs` lists them':
        '要比较的运行编号，与 `throughline runs` 列出的相同',
    'file to write':
        '要写出的文件',
    "Set two or more stored runs side by side: what differs between them, then every dimension with each run's value and 95 % interval and a verdict that names a winner only outside the noise (docs/COMPARE.md).":
        '并排列出两次或更多已保存的运行：先列出它们的不同之处，再列出每个维度上各运行的值、95 % 区间，以及只在噪声之外才判定胜者的结论（docs/COMPARE.md）。',
    'also write the comparison as JSON to OUT (- for stdout, no table)':
        '同时把比较以 JSON 写到 OUT（- 表示标准输出，不打印表格）',
    'Question sets: import a public set (Spider, BIRD, Spider2-lite, defog sql-eval) in one command, list the sets, show one, check that every gold runs.':
        '问题集：一条命令导入公开问题集（Spider、BIRD、Spider2-lite、defog sql-eval），列出问题集，查看其中一个，检查每个标准答案都能运行。',
    'import a public question set':
        '导入公开问题集',
    'list the question sets':
        '列出问题集',
    'show what a set holds':
        '查看问题集的内容',
    'run every gold and report the unusable ones':
        '运行每个标准答案并报告不可用的',
    'Import FILE as a question set. Records that cannot be imported are listed with the reason; the rest are written.':
        '把 FILE 导入为问题集。无法导入的记录连同原因一并列出；其余的写入。',
    'Spider/BIRD dev.json, Spider2-lite .jsonl or defog .csv':
        'Spider/BIRD 的 dev.json、Spider2-lite 的 .jsonl 或 defog 的 .csv',
    'the databases, as <db>/<db>.sqlite or <db>.sqlite (defog: a SQLite file works too)':
        '数据库，形如 <db>/<db>.sqlite 或 <db>.sqlite（defog：一个 SQLite 文件也可以）',
    "Spider2-lite's gold results: <id>.csv, <id>_a.csv, <id>_b.csv, ... (also in DIR/exec_result) and <id>.sql (also in DIR/sql)":
        'Spider2-lite 的标准结果：<id>.csv、<id>_a.csv、<id>_b.csv……（也可在 DIR/exec_result 中）以及 <id>.sql（也可在 DIR/sql 中）',
    'defog: only the rows of this db_name':
        'defog：只取此 db_name 的行',
    "the set's name (default: from FILE)":
        '问题集的名称（默认：取自 FILE）',
    'at most N records':
        '最多 N 条记录',
    'where to write the set (default: <user data>/questions/<name>)':
        '问题集的写入位置（默认：<用户数据>/questions/<name>）',
    "a set's name or folder":
        '问题集的名称或文件夹',
    'show this question in full':
        '完整显示这道题',
}


def parsers(parser: argparse.ArgumentParser):
    """`parser` and every subcommand's parser under it (an alias is the same parser, once)."""
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from parsers(sub)


def help_texts(parser: argparse.ArgumentParser):
    """Every (object, attribute) of `parser` and its subcommands that holds a help text: the
    description and epilog, the argument groups' titles and descriptions, each argument's help
    and each subcommand's one-line help."""
    for each in parsers(parser):
        yield each, "description"
        yield each, "epilog"
        for group in each._action_groups:
            yield group, "title"
            yield group, "description"
        for action in each._actions:
            yield action, "help"
            if isinstance(action, argparse._SubParsersAction):
                for choice in action._choices_actions:
                    yield choice, "help"


def translate_help(parser: argparse.ArgumentParser, lang: str) -> None:
    """Put the help of `parser` (and of every subcommand) in `lang` ("en": as it is)."""
    if lang != "zh":
        return
    for obj, attr in help_texts(parser):
        text = getattr(obj, attr, None)
        if isinstance(text, str) and text in HELP_ZH:
            setattr(obj, attr, HELP_ZH[text])
