<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
<context>
    <name>App</name>
    <message>
        <source>Throughline: unexpected error</source>
        <translation>Throughline：意外错误</translation>
    </message>
    <message>
        <source>starting the built-in simulator (profile {profile})...</source>
        <translation>正在启动内置模拟器（配置 {profile}）…</translation>
    </message>
    <message>
        <source>Results store unusable: {error}</source>
        <translation>结果库无法使用：{error}</translation>
    </message>
    <message>
        <source>Results: {path} ({count} interrupted runs)</source>
        <translation>结果库：{path}（{count} 个运行被中断）</translation>
    </message>
    <message>
        <source>Results: {path}</source>
        <translation>结果库：{path}</translation>
    </message>
</context>
<context>
    <name>AppShell</name>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>No job running</source>
        <translation>没有正在运行的任务</translation>
    </message>
    <message>
        <source>Throughline: a run is in progress</source>
        <translation>Throughline：有运行正在进行</translation>
    </message>
    <message>
        <source>A run is in progress ({pages}). Stop it and quit? What has finished so far is kept in the results store, marked cancelled.</source>
        <translation>有运行正在进行（{pages}）。要停止它并退出吗？已完成的部分会保存在结果库中，标记为已取消。</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>CellTableModel</name>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>output</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>prompt length (tokens)</source>
        <translation>提示长度（token）</translation>
    </message>
    <message>
        <source>requests in flight (concurrency) or arrival rate (requests/s)</source>
        <translation>同时在途的请求数（并发）或到达速率（请求/秒）</translation>
    </message>
    <message>
        <source>output length (tokens)</source>
        <translation>输出长度（token）</translation>
    </message>
    <message>
        <source>ok/n</source>
        <translation>成功/总数</translation>
    </message>
    <message>
        <source>completed requests / requests sent</source>
        <translation>完成的请求数 / 发出的请求数</translation>
    </message>
    <message>
        <source>client-bound: the benchmarking client was too busy, latencies unreliable</source>
        <translation>受限于客户端：压测客户端过于繁忙，延迟数据不可靠</translation>
    </message>
    <message>
        <source>client-bound</source>
        <translation>受限于客户端</translation>
    </message>
    <message>
        <source>{count} failed</source>
        <translation>{count} 个失败</translation>
    </message>
    <message>
        <source>{count} token-count mismatches</source>
        <translation>{count} 处 token 计数不一致</translation>
    </message>
    <message>
        <source>, </source>
        <translation>，</translation>
    </message>
</context>
<context>
    <name>ChartExporter</name>
    <message>
        <source>Save image…</source>
        <translation>保存图片…</translation>
    </message>
    <message>
        <source>Copy image</source>
        <translation>复制图片</translation>
    </message>
    <message>
        <source>Save or copy this chart</source>
        <translation>保存或复制此图表</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>SVG image (*.svg)</source>
        <translation>SVG 图片 (*.svg)</translation>
    </message>
    <message>
        <source>Save chart image</source>
        <translation>保存图表图片</translation>
    </message>
    <message>
        <source>Could not save the chart: {error}</source>
        <translation>无法保存图表：{error}</translation>
    </message>
    <message>
        <source>Saved {file}</source>
        <translation>已保存 {file}</translation>
    </message>
    <message>
        <source>The chart is on the clipboard.</source>
        <translation>图表已复制到剪贴板。</translation>
    </message>
</context>
<context>
    <name>ComparisonView</name>
    <message>
        <source>Select two or more runs of one kind and press Compare.</source>
        <translation>选择两个或更多同类运行，然后点击“比较”。</translation>
    </message>
    <message>
        <source>The recorded server settings are the same in every run.</source>
        <translation>各运行记录的服务端参数完全相同。</translation>
    </message>
    <message>
        <source>prompt length (tokens)</source>
        <translation>提示长度（token）</translation>
    </message>
    <message>
        <source>prefill</source>
        <translation>Prefill</translation>
    </message>
    <message>
        <source>Prefill throughput vs prompt length</source>
        <translation>Prefill 吞吐量与提示长度</translation>
    </message>
    <message>
        <source>Pass rate by tier</source>
        <translation>各层级通过率</translation>
    </message>
    <message>
        <source>Comparing throughput runs {names}: a winner only where the 95 % intervals do not overlap. Below, every cell: means of prefill and decode, median TTFT (hover for its interval).</source>
        <translation>比较吞吐量运行 {names}：仅当 95 % 置信区间不重叠时才判定胜者。下方为每个单元：Prefill 与 Decode 均值、TTFT 中位数（悬停查看其置信区间）。</translation>
    </message>
    <message>
        <source>Comparing SQL runs {names}: {count} questions, {differ} with different verdicts (in bold).</source>
        <translation>比较 SQL 运行 {names}：共 {count} 道题，其中 {differ} 道判定不同（粗体显示）。</translation>
    </message>
    <message>
        <source>Runs of kind {kind} cannot be compared yet.</source>
        <translation>暂不支持比较 {kind} 类型的运行。</translation>
    </message>
    <message>
        <source>95 % interval {interval}, {n} requests</source>
        <translation>95 % 置信区间 {interval}，{n} 个请求</translation>
    </message>
</context>
<context>
    <name>ConnectionResults</name>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>延迟</translation>
    </message>
    <message>
        <source>Models</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Tool calling</source>
        <translation>工具调用</translation>
    </message>
    <message>
        <source>Notes</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>Connection</source>
        <translation>连接</translation>
    </message>
    <message>
        <source>{row}:</source>
        <translation>{row}：</translation>
    </message>
    <message>
        <source>not tested</source>
        <translation>未测试</translation>
    </message>
    <message>
        <source>failed: {message}</source>
        <translation>失败：{message}</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>{ms} ms (GET /v1/models)</source>
        <translation>{ms} ms（GET /v1/models）</translation>
    </message>
    <message>
        <source>none listed</source>
        <translation>未列出任何模型</translation>
    </message>
    <message>
        <source>yes ({tokenizer})</source>
        <translation>是（{tokenizer}）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
</context>
<context>
    <name>DiagnosisView</name>
    <message>
        <source>Problem</source>
        <translation>问题</translation>
    </message>
    <message>
        <source>Warning</source>
        <translation>警告</translation>
    </message>
    <message>
        <source>Info</source>
        <translation>信息</translation>
    </message>
    <message>
        <source>The diagnosis appears when a sweep finishes.</source>
        <translation>扫描结束后会在这里显示诊断。</translation>
    </message>
    <message>
        <source>Nothing stands out.</source>
        <translation>没有发现明显问题。</translation>
    </message>
    <message>
        <source>Suggestion: {text}</source>
        <translation>建议：{text}</translation>
    </message>
    <message>
        <source>Evidence ({code})</source>
        <translation>依据（{code}）</translation>
    </message>
</context>
<context>
    <name>DimensionRowsModel</name>
    <message>
        <source>dimension</source>
        <translation>维度</translation>
    </message>
    <message>
        <source>verdict (95 % intervals)</source>
        <translation>结论（95 % 置信区间）</translation>
    </message>
</context>
<context>
    <name>EndpointsController</name>
    <message>
        <source>the simulator started but does not answer: {error}</source>
        <translation>模拟器已启动但没有响应：{error}</translation>
    </message>
</context>
<context>
    <name>EndpointsPage</name>
    <message>
        <source>A quick small-GPU server (an 8B-class model, vLLM defaults scaled down): TTFT tens of milliseconds, decode about 300 tok/s alone. For demos and tests.</source>
        <translation>小显卡上的快速服务端（8B 级模型，按比例缩小的 vLLM 默认参数）：TTFT 为几十毫秒，单请求 Decode 约 300 tok/s。用于演示和测试。</translation>
    </message>
    <message>
        <source>The seed reports&apos; server: vLLM with max-num-seqs=2 and the KV cache nearly full; prefill about 700 tok/s, decode about 25 tok/s, TTFT 51.5 s at 32k tokens. Slow on purpose.</source>
        <translation>种子报告中的服务端：vLLM，max-num-seqs=2，KV 缓存接近占满；Prefill 约 700 tok/s，Decode 约 25 tok/s，32k token 时 TTFT 为 51.5 s。刻意模拟的慢速服务端。</translation>
    </message>
    <message>
        <source>No modelled delay: tokens go out as fast as the server can write them. Measures the client&apos;s own ceiling, not a server.</source>
        <translation>不模拟任何延迟：token 以服务端能写出的最快速度发送。测量的是客户端自身的上限，而不是服务端。</translation>
    </message>
    <message>
        <source>The fast server capped at 2 requests at once (like vLLM with --max-num-seqs 2): requests beyond 2 queue.</source>
        <translation>同时最多处理 2 个请求的 fast 服务端（相当于 vLLM 的 --max-num-seqs 2）：超出 2 个的请求排队等待。</translation>
    </message>
    <message>
        <source>Built-in simulator</source>
        <translation>内置模拟器</translation>
    </message>
    <message>
        <source>unknown</source>
        <translation>未知</translation>
    </message>
    <message>
        <source>yes</source>
        <translation>是</translation>
    </message>
    <message>
        <source>no</source>
        <translation>否</translation>
    </message>
    <message>
        <source> (simulated)</source>
        <translation>（模拟）</translation>
    </message>
    <message>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>New</source>
        <translation>新建</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>not running</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Profile:</source>
        <translation>配置：</translation>
    </message>
    <message>
        <source>Status:</source>
        <translation>状态：</translation>
    </message>
    <message>
        <source>A simulated OpenAI-compatible server in a process of its own: no typing, no GPU. Choosing a profile starts it and makes it the active endpoint. Its numbers are simulated.</source>
        <translation>在独立进程中运行的模拟 OpenAI 兼容服务器：无需输入，无需 GPU。选择一个配置即可启动它，并设为当前端点。它给出的数字都是模拟的。</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>e.g. vLLM on gpu-box</source>
        <translation>例如：gpu-box 上的 vLLM</translation>
    </message>
    <message>
        <source>http://localhost:8000 (or .../v1)</source>
        <translation>http://localhost:8000（或 .../v1）</translation>
    </message>
    <message>
        <source>filled by Test connection</source>
        <translation>由“测试连接”填入</translation>
    </message>
    <message>
        <source>not tested</source>
        <translation>未测试</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source>Kept in the system keyring.</source>
        <translation>保存在系统密钥环中。</translation>
    </message>
    <message>
        <source>No system keyring here: the key is kept in memory for this session only.</source>
        <translation>本机没有系统密钥环：密钥只在本次会话的内存中保存。</translation>
    </message>
    <message>
        <source>Name:</source>
        <translation>名称：</translation>
    </message>
    <message>
        <source>Base URL:</source>
        <translation>基础 URL：</translation>
    </message>
    <message>
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <source>Engine:</source>
        <translation>引擎：</translation>
    </message>
    <message>
        <source>API key:</source>
        <translation>API 密钥：</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>Use this endpoint</source>
        <translation>使用此端点</translation>
    </message>
    <message>
        <source>Save</source>
        <translation>保存</translation>
    </message>
    <message>
        <source>Saved endpoints: {problem}.</source>
        <translation>已保存的端点：{problem}。</translation>
    </message>
    <message>
        <source>{name} (simulated)</source>
        <translation>{name}（模拟）</translation>
    </message>
    <message>
        <source>The simulator profile: how fast the simulated server is</source>
        <translation>模拟器配置：决定模拟服务端的速度</translation>
    </message>
    <message>
        <source>give it a name</source>
        <translation>请填写名称</translation>
    </message>
    <message>
        <source>{name} is reserved</source>
        <translation>{name} 是保留名称</translation>
    </message>
    <message>
        <source>a profile named {name} exists</source>
        <translation>已存在名为 {name} 的配置</translation>
    </message>
    <message>
        <source>Name: {problem}</source>
        <translation>名称：{problem}</translation>
    </message>
    <message>
        <source>Saved endpoints: cannot write {path}: {error}</source>
        <translation>已保存的端点：无法写入 {path}：{error}</translation>
    </message>
    <message>
        <source>{name} (profile {profile}, simulated) at {url}</source>
        <translation>{name}（配置 {profile}，模拟），地址 {url}</translation>
    </message>
    <message>
        <source>{name} ({engine}, {model}) at {url}</source>
        <translation>{name}（{engine}，{model}），地址 {url}</translation>
    </message>
    <message>
        <source>testing...</source>
        <translation>正在测试…</translation>
    </message>
    <message>
        <source>starting (profile {profile})...</source>
        <translation>正在启动（配置 {profile}）…</translation>
    </message>
    <message>
        <source>Restart</source>
        <translation>重新启动</translation>
    </message>
    <message>
        <source>starting the simulator...</source>
        <translation>正在启动模拟器…</translation>
    </message>
    <message>
        <source>running (profile {profile}) at {url}</source>
        <translation>运行中（配置 {profile}），地址 {url}</translation>
    </message>
    <message>
        <source>failed: {message}</source>
        <translation>失败：{message}</translation>
    </message>
    <message>
        <source>Active endpoint: {endpoint}</source>
        <translation>当前端点：{endpoint}</translation>
    </message>
    <message>
        <source>Active endpoint: none</source>
        <translation>当前端点：无</translation>
    </message>
</context>
<context>
    <name>ImportQuestionsDialog</name>
    <message>
        <source>Import a question set</source>
        <translation>导入题集</translation>
    </message>
    <message>
        <source>dev.json, spider2-lite.jsonl or a defog .csv</source>
        <translation>dev.json、spider2-lite.jsonl 或 defog 的 .csv</translation>
    </message>
    <message>
        <source>detect from the file</source>
        <translation>根据文件自动识别</translation>
    </message>
    <message>
        <source>folder of &lt;db&gt;/&lt;db&gt;.sqlite or &lt;db&gt;.sqlite</source>
        <translation>包含 &lt;db&gt;/&lt;db&gt;.sqlite 或 &lt;db&gt;.sqlite 的文件夹</translation>
    </message>
    <message>
        <source>Spider2-lite: folder of &lt;id&gt;_a.csv, ...</source>
        <translation>Spider2-lite：包含 &lt;id&gt;_a.csv 等文件的文件夹</translation>
    </message>
    <message>
        <source>defog: only this db_name</source>
        <translation>defog：只导入此 db_name</translation>
    </message>
    <message>
        <source>from the file&apos;s name</source>
        <translation>取自文件名</translation>
    </message>
    <message>
        <source>Questions file</source>
        <translation>题目文件</translation>
    </message>
    <message>
        <source>Format</source>
        <translation>格式</translation>
    </message>
    <message>
        <source>Databases</source>
        <translation>数据库</translation>
    </message>
    <message>
        <source>Gold results</source>
        <translation>标准结果</translation>
    </message>
    <message>
        <source>Database name</source>
        <translation>数据库名</translation>
    </message>
    <message>
        <source>Set name</source>
        <translation>题集名称</translation>
    </message>
    <message>
        <source>Imported sets are kept in {folder}.</source>
        <translation>导入的题集保存在 {folder}。</translation>
    </message>
    <message>
        <source>What was imported, and every record left out with the reason, shows here.</source>
        <translation>导入了什么，以及每条未导入的记录及原因，都会显示在这里。</translation>
    </message>
    <message>
        <source>Import</source>
        <translation>导入</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Question sets (*.json *.jsonl *.csv);;All files (*)</source>
        <translation>题集 (*.json *.jsonl *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <source>Questions file: choose an existing file.</source>
        <translation>题目文件：请选择一个已存在的文件。</translation>
    </message>
    <message>
        <source>Nothing was imported:
{error}</source>
        <translation>没有导入任何内容：
{error}</translation>
    </message>
    <message>
        <source>Nothing was imported: {error}</source>
        <translation>没有导入任何内容：{error}</translation>
    </message>
    <message>
        <source>Imported {n} questions as the set {name} ({folder}).</source>
        <translation>已导入 {n} 道题，题集 {name}（{folder}）。</translation>
    </message>
    <message>
        <source>Databases: {names}</source>
        <translation>数据库：{names}</translation>
    </message>
    <message>
        <source>1 row for another database left out.</source>
        <translation>另一个数据库的 1 行未导入。</translation>
    </message>
    <message>
        <source>{n} rows for other databases left out.</source>
        <translation>其他数据库的 {n} 行未导入。</translation>
    </message>
    <message>
        <source>the Format field</source>
        <translation>“格式”一栏</translation>
    </message>
    <message>
        <source>Skipped {n} records:</source>
        <translation>跳过 {n} 条记录：</translation>
    </message>
    <message>
        <source>the Databases folder</source>
        <translation>“数据库”文件夹</translation>
    </message>
    <message>
        <source>Warnings ({n}):</source>
        <translation>警告（{n}）：</translation>
    </message>
    <message>
        <source>The questions do not name their output columns or rounding: runs of this set are judged by full, column names ignored.</source>
        <translation>这些题目没有指明输出列名和舍入位数：本题集的评测用“完整”评判器判定，且不比较列名。</translation>
    </message>
</context>
<context>
    <name>InspectorPage</name>
    <message>
        <source>no final SQL</source>
        <translation>没有最终 SQL</translation>
    </message>
    <message>
        <source>There is no run {run} in {path}.</source>
        <translation>{path} 中没有运行 {run}。</translation>
    </message>
    <message>
        <source>Run {run} is a {kind} run, not a SQL evaluation.</source>
        <translation>运行 {run} 是 {kind} 运行，不是 SQL 评测。</translation>
    </message>
    <message>
        <source>Run {run} has no question row {row}.</source>
        <translation>运行 {run} 中没有第 {row} 行题目记录。</translation>
    </message>
    <message>
        <source>the question set cannot be loaded: {error}</source>
        <translation>无法加载题集：{error}</translation>
    </message>
    <message>
        <source>not available</source>
        <translation>不可用</translation>
    </message>
    <message>
        <source>the database cannot be opened: {error}</source>
        <translation>无法打开数据库：{error}</translation>
    </message>
    <message>
        <source>as stored</source>
        <translation>按存储结果</translation>
    </message>
    <message>
        <source>no result</source>
        <translation>无结果</translation>
    </message>
    <message>
        <source>(the question&apos;s text was not stored)</source>
        <translation>（未保存题目文本）</translation>
    </message>
    <message>
        <source>Cannot re-judge: the question&apos;s database is not available.</source>
        <translation>无法重新评判：该题的数据库不可用。</translation>
    </message>
    <message>
        <source>Cannot re-judge: the gold SQL failed: {error}</source>
        <translation>无法重新评判：参考 SQL 执行失败：{error}</translation>
    </message>
    <message>
        <source>the fast answer passed the harness&apos;s checks</source>
        <translation>快速答案通过了评测框架的检查</translation>
    </message>
    <message>
        <source>the fast answer failed the harness&apos;s checks</source>
        <translation>快速答案未通过评测框架的检查</translation>
    </message>
    <message>
        <source>the fast path gave no answer</source>
        <translation>快速路径没有给出答案</translation>
    </message>
    <message>
        <source>the route sends this tier straight to the tool loop</source>
        <translation>路由规则将该难度的题目直接交给工具循环</translation>
    </message>
    <message>
        <source>the route sends every question to the tool loop</source>
        <translation>路由规则将所有题目交给工具循环</translation>
    </message>
    <message>
        <source>the query failed: {error}</source>
        <translation>查询失败：{error}</translation>
    </message>
    <message>
        <source>the query returned no rows</source>
        <translation>查询没有返回任何行</translation>
    </message>
    <message>
        <source>the output columns are {columns}, the question asks for {required}</source>
        <translation>输出列为 {columns}，题目要求 {required}</translation>
    </message>
    <message>
        <source>column {column} must be rounded to {decimals} decimals (values like {value})</source>
        <translation>列 {column} 应保留 {decimals} 位小数（实际值如 {value}）</translation>
    </message>
    <message>
        <source>: </source>
        <translation>：</translation>
    </message>
    <message>
        <source>; </source>
        <translation>；</translation>
    </message>
    <message>
        <source>No findings: the answer matches.</source>
        <translation>没有发现问题：答案一致。</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>Open a question from a SQL run (Runs page or SQL Agent page).</source>
        <translation>从 SQL 运行中打开一道题（在“运行记录”页或“SQL 智能体”页）。</translation>
    </message>
    <message>
        <source>&lt; Previous</source>
        <translation>&lt; 上一题</translation>
    </message>
    <message>
        <source>The run&apos;s previous question (Alt+Left)</source>
        <translation>本次运行的上一题（Alt+左方向键）</translation>
    </message>
    <message>
        <source>Next &gt;</source>
        <translation>下一题 &gt;</translation>
    </message>
    <message>
        <source>The run&apos;s next question (Alt+Right)</source>
        <translation>本次运行的下一题（Alt+右方向键）</translation>
    </message>
    <message>
        <source>The run&apos;s questions in the run&apos;s order, with each judge&apos;s verdict: choose one to open it</source>
        <translation>本次运行的题目（按运行顺序）及各评判器的判定：选择一题即可打开</translation>
    </message>
    <message>
        <source>Another run of this question set: its transcript of the question shown, beside this run&apos;s</source>
        <translation>同一题集的另一次运行：它对当前题目的完整过程，与本次运行并排显示</translation>
    </message>
    <message>
        <source>Search id, question or SQL</source>
        <translation>搜索编号、题目或 SQL</translation>
    </message>
    <message>
        <source>Every word must appear in the question&apos;s id, its text, its final SQL or its gold SQL (case and spacing ignored; &quot;double quotes&quot; keep a phrase). Enter opens the first match.</source>
        <translation>每个词都必须出现在题目编号、题目文本、最终 SQL 或标准 SQL 中（不区分大小写和空白；用&quot;双引号&quot;保留整个短语）。按回车打开第一个匹配项。</translation>
    </message>
    <message>
        <source>Only the questions of one tier</source>
        <translation>只显示某一层级的题目</translation>
    </message>
    <message>
        <source>Only the answers that failed for one reason (the failure class of the run&apos;s own judges), or those that passed</source>
        <translation>只显示因某一原因失败的答案（按本次运行自身评判器的失败类别），或只显示通过的答案</translation>
    </message>
    <message>
        <source>Only the questions a judge failed or passed, those the run&apos;s judges disagree on, or those not judged</source>
        <translation>只显示某个评判器判为未通过或通过的题目、本次运行的评判器意见不一的题目，或未评判的题目</translation>
    </message>
    <message>
        <source>Clear</source>
        <translation>清除</translation>
    </message>
    <message>
        <source>Show every question of the run again</source>
        <translation>重新显示本次运行的全部题目</translation>
    </message>
    <message>
        <source>e.g. 1e-6</source>
        <translation>例如 1e-6</translation>
    </message>
    <message>
        <source>Numbers are rounded as the question asks, then compared within this tolerance</source>
        <translation>数值先按题目要求取整，再在此容差内比较</translation>
    </message>
    <message>
        <source>Re-judge</source>
        <translation>重新评判</translation>
    </message>
    <message>
        <source>Run the gold and final SQL again and judge at this tolerance. No model call; nothing is saved.</source>
        <translation>重新执行参考 SQL 和最终 SQL，并按此容差评判。不调用模型，也不保存任何内容。</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>Gold SQL</source>
        <translation>参考 SQL</translation>
    </message>
    <message>
        <source>The question&apos;s gold SQL, laid out one clause a line as the agent&apos;s queries are; the judges ran it as stored</source>
        <translation>题目的参考 SQL，按智能体查询的样式每个子句一行排版；评判时运行的是存储的原文</translation>
    </message>
    <message>
        <source>Final SQL</source>
        <translation>最终 SQL</translation>
    </message>
    <message>
        <source>Judges</source>
        <translation>评判器</translation>
    </message>
    <message>
        <source>Agent steps</source>
        <translation>智能体步骤</translation>
    </message>
    <message>
        <source>Loading run {run}, question row {row}...</source>
        <translation>正在加载运行 {run} 的第 {row} 行题目…</translation>
    </message>
    <message>
        <source>tolerance: {text} must be a number &gt;= 0, e.g. 1e-6</source>
        <translation>容差：{text} 必须是 &gt;= 0 的数，例如 1e-6</translation>
    </message>
    <message>
        <source>Re-judging at tolerance {tolerance}...</source>
        <translation>正在按容差 {tolerance} 重新评判…</translation>
    </message>
    <message>
        <source>Run {run}</source>
        <translation>运行 {run}</translation>
    </message>
    <message>
        <source>Run {run} did not ask {question}.</source>
        <translation>运行 {run} 没有做 {question} 这道题。</translation>
    </message>
    <message>
        <source>Loading...</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>Side by side: off</source>
        <translation>并排对比：关闭</translation>
    </message>
    <message>
        <source>beside run {run} “{name}” · {model}</source>
        <translation>与运行 {run}“{name}”并排 · {model}</translation>
    </message>
    <message>
        <source>beside run {run} (did not ask {question})</source>
        <translation>与运行 {run} 并排（它没有做 {question}）</translation>
    </message>
    <message>
        <source>Passed ({count})</source>
        <translation>已通过（{count}）</translation>
    </message>
    <message>
        <source>Fails {judge}</source>
        <translation>{judge}未通过</translation>
    </message>
    <message>
        <source>Passes {judge}</source>
        <translation>{judge}通过</translation>
    </message>
    <message>
        <source>Judges disagree</source>
        <translation>评判器意见不一</translation>
    </message>
    <message>
        <source>Not judged</source>
        <translation>未评判</translation>
    </message>
    <message>
        <source>All tiers</source>
        <translation>全部层级</translation>
    </message>
    <message>
        <source>All classes</source>
        <translation>全部类别</translation>
    </message>
    <message>
        <source>All verdicts</source>
        <translation>全部判定</translation>
    </message>
    <message>
        <source>{count} of {total} match</source>
        <translation>{total} 道中 {count} 道匹配</translation>
    </message>
    <message>
        <source>No question matches</source>
        <translation>没有匹配的题目</translation>
    </message>
    <message>
        <source>The question shown is not among the matches</source>
        <translation>当前显示的题目不在匹配项中</translation>
    </message>
    <message>
        <source>{index} of {total}</source>
        <translation>第 {index} / {total} 题</translation>
    </message>
    <message>
        <source>(SIMULATED persona, not a model)</source>
        <translation>（模拟角色，并非真实模型）</translation>
    </message>
    <message>
        <source>run {run} “{name}”</source>
        <translation>运行 {run}“{name}”</translation>
    </message>
    <message>
        <source> · verdicts re-judged</source>
        <translation> · 判定已重新评判</translation>
    </message>
    <message>
        <source>Model {model} · epoch {epoch} · {status} · stopped: {stop} · 1 step · stored tolerance {tolerance}</source>
        <translation>模型 {model} · 第 {epoch} 轮 · {status} · 停止原因：{stop} · 1 步 · 存储的容差 {tolerance}</translation>
    </message>
    <message>
        <source>Model {model} · epoch {epoch} · {status} · stopped: {stop} · {steps} steps · stored tolerance {tolerance}</source>
        <translation>模型 {model} · 第 {epoch} 轮 · {status} · 停止原因：{stop} · {steps} 步 · 存储的容差 {tolerance}</translation>
    </message>
    <message>
        <source>Re-judging needs the question&apos;s database.</source>
        <translation>重新评判需要该题的数据库。</translation>
    </message>
    <message>
        <source>Layered: the fast path answered (one request without tools): {why}.</source>
        <translation>分层策略：由快速路径作答（一次不带工具的请求）：{why}。</translation>
    </message>
    <message>
        <source>Layered: the tool loop answered (steps 1–{last}); the fast path was skipped: {why}.</source>
        <translation>分层策略：由工具循环作答（第 1–{last} 步）；跳过了快速路径：{why}。</translation>
    </message>
    <message>
        <source>Layered: the tool loop answered (steps 2–{last}); step 1 was the fast path. The loop was entered because {why}.</source>
        <translation>分层策略：由工具循环作答（第 2–{last} 步）；第 1 步是快速路径。进入工具循环的原因：{why}。</translation>
    </message>
    <message>
        <source>Re-judged at tolerance {tolerance} (not saved; no model call).</source>
        <translation>已按容差 {tolerance} 重新评判（未保存；未调用模型）。</translation>
    </message>
    <message>
        <source> (tol {tolerance})</source>
        <translation>（容差 {tolerance}）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <source>Endpoints</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>Saved endpoint profiles, connection tests and the built-in simulated endpoint.</source>
        <translation>已保存的端点配置、连接测试和内置的模拟端点。</translation>
    </message>
    <message>
        <source>Throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>Sweeps of prompt length x concurrency with live charts of prefill, decode and TTFT, and the server&apos;s queue and KV cache.</source>
        <translation>按提示长度 × 并发数扫描，实时绘制 Prefill、Decode 和 TTFT 图表，以及服务端的队列和 KV 缓存。</translation>
    </message>
    <message>
        <source>SQL Agent</source>
        <translation>SQL 智能体</translation>
    </message>
    <message>
        <source>Agentic text-to-SQL evaluation with strict and tolerant judges.</source>
        <translation>智能体式 text-to-SQL 评测，使用“严格”和“容差”评判器。</translation>
    </message>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Every stored run: reopen, delete, compare side by side.</source>
        <translation>所有已保存的运行：重新打开、删除、并排比较。</translation>
    </message>
    <message>
        <source>Inspector</source>
        <translation>检查器</translation>
    </message>
    <message>
        <source>One question&apos;s agent steps, tool calls and the judges&apos; findings.</source>
        <translation>单道题的智能体步骤、工具调用和评判器的发现。</translation>
    </message>
    <message>
        <source>System language</source>
        <translation>跟随系统语言</translation>
    </message>
    <message>
        <source>Endpoint: none</source>
        <translation>端点：无</translation>
    </message>
    <message>
        <source>No job running</source>
        <translation>没有正在运行的任务</translation>
    </message>
    <message>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <source>The language changes when Throughline starts again.</source>
        <translation>重新启动 Throughline 后语言才会切换。</translation>
    </message>
    <message>
        <source>Restart Throughline?</source>
        <translation>重新启动 Throughline？</translation>
    </message>
    <message>
        <source>The language changes when Throughline starts again. Restart now? A run in progress is asked about first; everything stored is kept.</source>
        <translation>重新启动 Throughline 后语言才会切换。现在重新启动吗？如有正在进行的运行，会先询问；已保存的内容都会保留。</translation>
    </message>
    <message>
        <source>Restart now</source>
        <translation>立即重新启动</translation>
    </message>
    <message>
        <source>Later</source>
        <translation>稍后</translation>
    </message>
    <message>
        <source>Endpoint: {endpoint}</source>
        <translation>端点：{endpoint}</translation>
    </message>
</context>
<context>
    <name>OpenResultBar</name>
    <message>
        <source>Open file</source>
        <translation>打开文件</translation>
    </message>
    <message>
        <source>Open folder</source>
        <translation>打开文件夹</translation>
    </message>
    <message>
        <source>Copy path</source>
        <translation>复制路径</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Nothing on this desktop opens it (no program is set for files or folders): {path}</source>
        <translation>此桌面上没有可以打开它的程序（未为文件或文件夹设置程序）：{path}</translation>
    </message>
</context>
<context>
    <name>PlaceholderPage</name>
    <message>
        <source>Loading...</source>
        <translation>正在加载…</translation>
    </message>
</context>
<context>
    <name>QuestionFilterModel</name>
    <message>
        <source>All questions</source>
        <translation>全部题目</translation>
    </message>
    <message>
        <source>Failed strict</source>
        <translation>“严格”未通过</translation>
    </message>
    <message>
        <source>Fails strict but passes tolerant</source>
        <translation>“严格”未通过但“容差”通过</translation>
    </message>
    <message>
        <source>Passed strict</source>
        <translation>“严格”通过</translation>
    </message>
    <message>
        <source>Failed every judge</source>
        <translation>所有评判器均未通过</translation>
    </message>
    <message>
        <source>Not judged (cancelled)</source>
        <translation>未评判（已取消）</translation>
    </message>
</context>
<context>
    <name>QuestionTableModel</name>
    <message>
        <source>Tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>Epoch</source>
        <translation>轮次</translation>
    </message>
    <message>
        <source>Failure class</source>
        <translation>失败类别</translation>
    </message>
    <message>
        <source>Steps</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Tokens</source>
        <translation>token 数</translation>
    </message>
    <message>
        <source>Seconds</source>
        <translation>秒</translation>
    </message>
</context>
<context>
    <name>RequestBrowser</name>
    <message>
        <source>Failed requests only</source>
        <translation>只看失败的请求</translation>
    </message>
    <message>
        <source>{run}: {count} failed requests (warm-ups included), in sweep order</source>
        <translation>{run}：{count} 个失败的请求（含预热），按扫描顺序</translation>
    </message>
    <message>
        <source>{run}: {count} requests (warm-ups included), in sweep order</source>
        <translation>{run}：{count} 个请求（含预热），按扫描顺序</translation>
    </message>
</context>
<context>
    <name>RequestsTableModel</name>
    <message>
        <source>warm-up</source>
        <translation>预热</translation>
    </message>
    <message>
        <source>cell (in / load / out)</source>
        <translation>单元（输入 / 负载 / 输出）</translation>
    </message>
    <message>
        <source>seq</source>
        <translation>序号</translation>
    </message>
    <message>
        <source>prompt tok</source>
        <translation>提示 tok</translation>
    </message>
    <message>
        <source>compl. tok</source>
        <translation>生成 tok</translation>
    </message>
    <message>
        <source>finish</source>
        <translation>结束原因</translation>
    </message>
    <message>
        <source>error</source>
        <translation>错误</translation>
    </message>
    <message>
        <source>response id</source>
        <translation>响应 ID</translation>
    </message>
</context>
<context>
    <name>ResultDiffTable</name>
    <message>
        <source>row only on this side</source>
        <translation>只有这一侧有这一行</translation>
    </message>
    <message>
        <source>(no column)</source>
        <translation>（无此列）</translation>
    </message>
    <message>
        <source>expected {expected}, got {actual}</source>
        <translation>期望 {expected}，实际 {actual}</translation>
    </message>
    <message>
        <source>Expected (gold)</source>
        <translation>期望结果（参考）</translation>
    </message>
    <message>
        <source>Actual (final SQL)</source>
        <translation>实际结果（最终 SQL）</translation>
    </message>
    <message>
        <source>differs from the other side&apos;s cell</source>
        <translation>与另一侧对应单元格不同</translation>
    </message>
    <message>
        <source>named in a judge&apos;s finding</source>
        <translation>评判器的发现中指出的单元格</translation>
    </message>
    <message>
        <source>(a cut value ends in …: hover it to read it whole)</source>
        <translation>（被截断的值以 … 结尾：鼠标悬停可查看完整值）</translation>
    </message>
    <message>
        <source>no result</source>
        <translation>无结果</translation>
    </message>
    <message>
        <source>1 row</source>
        <translation>1 行</translation>
    </message>
    <message>
        <source>{total} rows</source>
        <translation>{total} 行</translation>
    </message>
    <message>
        <source>first {shown} of {total} rows</source>
        <translation>共 {total} 行中的前 {shown} 行</translation>
    </message>
</context>
<context>
    <name>RunStatus</name>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>completed</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <source>interrupted</source>
        <translation>已中断</translation>
    </message>
    <message>
        <source>time_budget</source>
        <translation>超出时间预算</translation>
    </message>
    <message>
        <source>incomplete</source>
        <translation>不完整</translation>
    </message>
    <message>
        <source>pending</source>
        <translation>待运行</translation>
    </message>
    <message>
        <source>throughput</source>
        <translation>吞吐量</translation>
    </message>
    <message>
        <source>sql</source>
        <translation>SQL</translation>
    </message>
    <message>
        <source>replay</source>
        <translation>回放</translation>
    </message>
</context>
<context>
    <name>RunsPage</name>
    <message>
        <source>Runs</source>
        <translation>运行记录</translation>
    </message>
    <message>
        <source>Dates</source>
        <translation>日期</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>to</source>
        <translation>至</translation>
    </message>
    <message>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <source>Show the run in its page (or double-click it)</source>
        <translation>在对应页面中显示该运行（或双击它）</translation>
    </message>
    <message>
        <source>Requests</source>
        <translation>请求</translation>
    </message>
    <message>
        <source>Browse every request of the selected throughput run</source>
        <translation>浏览所选吞吐量运行的每个请求</translation>
    </message>
    <message>
        <source>Compare</source>
        <translation>比较</translation>
    </message>
    <message>
        <source>Select two or more runs; a sweep and a SQL run of one endpoint also give the capacity in tasks</source>
        <translation>选择两个或更多运行；同一端点的一次吞吐扫描和一次 SQL 运行还会给出按任务计的容量</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Resume</source>
        <translation>继续</translation>
    </message>
    <message>
        <source>Finish an interrupted or stopped sweep into the same run, on the active endpoint</source>
        <translation>在当前端点上把中断或停止的扫描完成到同一个运行中</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Comparison PDF…</source>
        <translation>对比 PDF…</translation>
    </message>
    <message>
        <source>CSV files…</source>
        <translation>CSV 文件…</translation>
    </message>
    <message>
        <source>JSON…</source>
        <translation>JSON…</translation>
    </message>
    <message>
        <source>Replay as load…</source>
        <translation>作为负载回放…</translation>
    </message>
    <message>
        <source>Send the selected SQL run&apos;s recorded conversations again as concurrent agents against the active endpoint: capacity in tasks per hour, measured, stored as a run that a comparison sets beside the capacity model</source>
        <translation>把所选 SQL 运行记录的对话以并发智能体重新发送到当前端点：实测每小时任务数，保存为一次运行，对比时列在容量模型旁</translation>
    </message>
    <message>
        <source>Import…</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Results of vllm bench serve, AIPerf or GuideLLM, as runs to compare</source>
        <translation>把 vllm bench serve、AIPerf 或 GuideLLM 的结果导入为可对比的运行</translation>
    </message>
    <message>
        <source>Select a throughput run to browse its requests; select two or more runs and press Compare to see them side by side (a sweep with a SQL run of its endpoint adds the capacity in tasks).</source>
        <translation>选择一个吞吐运行可浏览其请求；选择两个或更多运行并点击“比较”可并排查看（同一端点的扫描加上 SQL 运行还会给出按任务计的容量）。</translation>
    </message>
    <message>
        <source>{count} run(s)</source>
        <translation>{count} 个运行</translation>
    </message>
    <message>
        <source>Replay #{run} of run #{sql}: {points}</source>
        <translation>回放 #{run}（运行 #{sql}）：{points}</translation>
    </message>
    <message>
        <source>Reading {count} runs to compare…</source>
        <translation>正在读取 {count} 个运行以便比较…</translation>
    </message>
    <message>
        <source>
  … and {count} more</source>
        <translation>
  …… 以及另外 {count} 个</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete {count} run(s) and every request, cell and answer stored with them?</source>
        <translation>删除这 {count} 个运行以及与之一起保存的所有请求、单元和答案吗？</translation>
    </message>
    <message>
        <source>This cannot be undone.</source>
        <translation>此操作无法撤销。</translation>
    </message>
    <message>
        <source>Deleting {count} run(s)…</source>
        <translation>正在删除 {count} 个运行…</translation>
    </message>
    <message>
        <source>Replay as load</source>
        <translation>作为负载回放</translation>
    </message>
    <message>
        <source>Concurrent agents, e.g. 1,4,8 (each number in turn; every recorded question of run #{run} once per number), against {endpoint}:</source>
        <translation>并发智能体数，例如 1,4,8（依次回放；运行 #{run} 记录的每道题每个数各回放一次），目标 {endpoint}：</translation>
    </message>
    <message>
        <source>Replaying run #{run} at {agents} agent(s)…</source>
        <translation>正在以 {agents} 个智能体回放运行 #{run}…</translation>
    </message>
    <message>
        <source>{value} tasks/h [{low}-{high}]</source>
        <translation>每小时 {value} 个任务［{low}-{high}］</translation>
    </message>
    <message>
        <source>no task finished</source>
        <translation>没有完成的任务</translation>
    </message>
    <message>
        <source>{n} agent(s): {figure}</source>
        <translation>{n} 个智能体：{figure}</translation>
    </message>
    <message>
        <source>Replay stored as run #{run}: {points}</source>
        <translation>回放已保存为运行 #{run}：{points}</translation>
    </message>
    <message>
        <source>Writing {what}…</source>
        <translation>正在写入 {what}…</translation>
    </message>
    <message>
        <source>Wrote 1 file to {where}</source>
        <translation>已写入 1 个文件到 {where}</translation>
    </message>
    <message>
        <source>Wrote {count} files to {where}</source>
        <translation>已写入 {count} 个文件到 {where}</translation>
    </message>
    <message>
        <source>Importing {file}…</source>
        <translation>正在导入 {file}…</translation>
    </message>
    <message>
        <source>Imported as run(s) {ids}</source>
        <translation>已导入为运行 {ids}</translation>
    </message>
    <message>
        <source>Save the comparison PDF</source>
        <translation>保存对比 PDF</translation>
    </message>
    <message>
        <source>PDF files (*.pdf)</source>
        <translation>PDF 文件 (*.pdf)</translation>
    </message>
    <message>
        <source>Export into folder</source>
        <translation>导出到文件夹</translation>
    </message>
    <message>
        <source>Import results of another tool</source>
        <translation>导入其他工具的结果</translation>
    </message>
    <message>
        <source>Results (*.json *.jsonl *.csv);;All files (*)</source>
        <translation>结果 (*.json *.jsonl *.csv);;所有文件 (*)</translation>
    </message>
    <message>
        <source>All</source>
        <translation>全部</translation>
    </message>
</context>
<context>
    <name>RunsTableModel</name>
    <message>
        <source>{minutes} min {seconds} s</source>
        <translation>{minutes} 分 {seconds} 秒</translation>
    </message>
    <message>
        <source>{hours} h {minutes} min</source>
        <translation>{hours} 小时 {minutes} 分</translation>
    </message>
    <message>
        <source>Kind</source>
        <translation>类型</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Started</source>
        <translation>开始时间</translation>
    </message>
    <message>
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Engine</source>
        <translation>引擎</translation>
    </message>
    <message>
        <source>Endpoint</source>
        <translation>端点</translation>
    </message>
</context>
<context>
    <name>SettingsDifferModel</name>
    <message>
        <source>what differs</source>
        <translation>差异项</translation>
    </message>
    <message>
        <source>not recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>{value} (typed)</source>
        <translation>{value}（手动填写）</translation>
    </message>
</context>
<context>
    <name>SqlAgentPage</name>
    <message>
        <source>Loading the question set...</source>
        <translation>正在加载题集…</translation>
    </message>
    <message>
        <source>Asking the endpoint...</source>
        <translation>正在询问端点…</translation>
    </message>
    <message>
        <source>Running the gold queries...</source>
        <translation>正在执行参考查询…</translation>
    </message>
    <message>
        <source>Finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>The system prompt insists on the exact output column names, their order and the rounding the question states (ROUND in the SQL itself).</source>
        <translation>系统提示要求严格使用题目给出的输出列名、列顺序和舍入方式（在 SQL 中直接使用 ROUND）。</translation>
    </message>
    <message>
        <source>Worked window-function examples (LAG, ROW_NUMBER, running SUM) in the system prompt, for hard questions only: they cost prompt tokens on every step.</source>
        <translation>在系统提示中加入窗口函数示例（LAG、ROW_NUMBER、累计 SUM），仅用于困难题：每一步都会多消耗提示 token。</translation>
    </message>
    <message>
        <source>Appends the question&apos;s glossary entry and the set&apos;s business glossary to the first message, after the question&apos;s own text.</source>
        <translation>在第一条消息中、题目原文之后附上该题的术语解释和题集的业务术语表。</translation>
    </message>
    <message>
        <source>Checks a submitted answer&apos;s result (column names, rounding, empty result...); when something is off the model is told once and may submit again.</source>
        <translation>检查提交答案的结果（列名、舍入、空结果等）；发现问题时告知模型一次，模型可重新提交。</translation>
    </message>
    <message>
        <source>The seeds&apos; layered strategy: one request without tools asks for the SQL; the harness checks it (it runs, returns rows, names and rounding, never the gold) and only an answer that fails pays for the tool loop, with the format guard and examples.</source>
        <translation>种子报告中的分层策略：先发一个不带工具的请求直接要 SQL；评测框架检查该答案（能否运行、是否返回行、列名和舍入，从不查看标准答案），只有未通过检查的答案才进入工具循环，并加上格式约束和示例。</translation>
    </message>
    <message>
        <source>Folder...</source>
        <translation>文件夹…</translation>
    </message>
    <message>
        <source>Use a question set folder (holding set.toml)</source>
        <translation>使用一个题集文件夹（其中包含 set.toml）</translation>
    </message>
    <message>
        <source>Import...</source>
        <translation>导入…</translation>
    </message>
    <message>
        <source>Import a public question set (Spider, BIRD, Spider2-lite, defog sql-eval) with its databases</source>
        <translation>导入公开题集（Spider、BIRD、Spider2-lite、defog sql-eval）及其数据库</translation>
    </message>
    <message>
        <source>all (e.g. m01, h01)</source>
        <translation>全部（例如 m01, h01）</translation>
    </message>
    <message>
        <source>Only these question ids, separated by commas; empty: all (within the tiers chosen)</source>
        <translation>只运行这些题目 ID，用逗号分隔；留空：全部（在所选层级内）</translation>
    </message>
    <message>
        <source>Questions</source>
        <translation>题目</translation>
    </message>
    <message>
        <source>Set</source>
        <translation>题集</translation>
    </message>
    <message>
        <source>Tiers</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>Ids</source>
        <translation>ID</translation>
    </message>
    <message>
        <source>The model the agent runs on: the active endpoint&apos;s models (or type one)</source>
        <translation>智能体使用的模型：当前端点提供的模型（也可以手动输入）</translation>
    </message>
    <message>
        <source>A scripted persona of the built-in simulator, not a model: it lists the tables, describes one, runs the gold SQL and submits it, so every question passes every judge (25/25 on sales-25). For checking the harness end to end.</source>
        <translation>内置模拟器的脚本角色，并非真实模型：它列出表、查看其中一张表、运行参考 SQL 并提交，因此每道题都能通过所有评判（sales-25 上 25/25）。用于端到端检查评测框架。</translation>
    </message>
    <message>
        <source>A scripted persona of the built-in simulator, not a model: it replays the seed reports&apos; run, dropping ROUND(x, n) and misnaming columns as that run did (9/25 strict, 22/25 tolerant on sales-25), with the same faults on the layered strategy&apos;s fast path.</source>
        <translation>内置模拟器的脚本角色，并非真实模型：它重放种子报告中的运行，像那次运行一样遗漏 ROUND(x, n) 并写错列名（sales-25 上严格 9/25、容差 22/25）；在分层策略的快速路径上也犯同样的错误。</translation>
    </message>
    <message>
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <source>Numeric tolerance of the tolerant and full judges</source>
        <translation>“容差”和“完整”评判器使用的数值容差</translation>
    </message>
    <message>
        <source>Numbers are rounded as the question asks, then compared within this tolerance (relative above 1, absolute below); used by the tolerant and full judges</source>
        <translation>数值先按题目要求取整，再在此容差内比较（大于 1 时为相对容差，否则为绝对容差）；用于“容差”和“完整”判定</translation>
    </message>
    <message>
        <source>Judges</source>
        <translation>评判器</translation>
    </message>
    <message>
        <source>Tolerance</source>
        <translation>容差</translation>
    </message>
    <message>
        <source>Strategies</source>
        <translation>策略</translation>
    </message>
    <message>
        <source>no limit</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>Budgets per question</source>
        <translation>每道题的预算</translation>
    </message>
    <message>
        <source>Max steps</source>
        <translation>最大步数</translation>
    </message>
    <message>
        <source>Max tokens</source>
        <translation>最大 token 数</translation>
    </message>
    <message>
        <source>Time (s)</source>
        <translation>时间（秒）</translation>
    </message>
    <message>
        <source>Model calls that fail transiently (no answer, 429, 5xx) are tried again this many times, waiting at least the server&apos;s Retry-After; 0 keeps every fault visible</source>
        <translation>暂时失败的模型调用（无应答、429、5xx）最多重试这么多次，每次至少等待服务器的 Retry-After；0 表示保留每个故障可见</translation>
    </message>
    <message>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <source>The language the questions are asked in</source>
        <translation>向模型提问时使用的语言</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Concurrency</source>
        <translation>并发数</translation>
    </message>
    <message>
        <source>Epochs</source>
        <translation>轮数</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试次数</translation>
    </message>
    <message>
        <source>Question language</source>
        <translation>题目语言</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>no run yet</source>
        <translation>尚未运行</translation>
    </message>
    <message>
        <source>No run yet: choose the options and press Start.</source>
        <translation>尚未运行：选好选项后点击“开始”。</translation>
    </message>
    <message>
        <source>The layered strategy: the fast path is one request without tools whose answer passed the harness&apos;s checks; the tool loop answered the rest</source>
        <translation>分层策略：快速路径是一次不带工具的请求，其答案通过了评测框架的检查；其余题目由工具循环作答</translation>
    </message>
    <message>
        <source>all tiers</source>
        <translation>全部层级</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Double-click a question to open it in the Inspector</source>
        <translation>双击一道题，在检查器中打开</translation>
    </message>
    <message>
        <source>This set&apos;s questions do not name their output columns or rounding: full judges them with column names ignored; strict and tolerant compare names nobody asked for.</source>
        <translation>本题集的题目没有指明输出列名和舍入位数：由“完整”评判器判定且不比较列名；“严格”和“容差”会比较题目并未要求的列名。</translation>
    </message>
    <message>
        <source>Question set folder</source>
        <translation>题集文件夹</translation>
    </message>
    <message>
        <source>{name} (folder)</source>
        <translation>{name}（文件夹）</translation>
    </message>
    <message>
        <source>Starting {questions} with {model}...</source>
        <translation>正在用 {model} 开始评测 {questions}…</translation>
    </message>
    <message>
        <source>Stopping...</source>
        <translation>正在停止…</translation>
    </message>
    <message>
        <source>{shown} of {total} shown</source>
        <translation>显示 {shown} / {total}</translation>
    </message>
    <message>
        <source>%v / %m questions</source>
        <translation>%v / %m 道题</translation>
    </message>
    <message>
        <source>: {question} step {step}</source>
        <translation>：{question} 第 {step} 步</translation>
    </message>
    <message>
        <source>: {question} finished</source>
        <translation>：{question} 已完成</translation>
    </message>
    <message>
        <source>, about {time} left</source>
        <translation>，预计还需 {time}</translation>
    </message>
    <message>
        <source>Running, {done} of {total} questions done after {seconds} s</source>
        <translation>运行中，{seconds} 秒内完成 {done} / {total} 道题</translation>
    </message>
    <message>
        <source>%v / %m questions, about {time} left</source>
        <translation>%v / %m 道题，预计还需 {time}</translation>
    </message>
    <message>
        <source>, {count} skipped</source>
        <translation>，跳过 {count} 道</translation>
    </message>
    <message>
        <source>Finished run {run}: {count} questions{skipped}. Double-click one to inspect it.</source>
        <translation>运行 {run} 已完成：{count} 道题{skipped}。双击一道题可查看详情。</translation>
    </message>
    <message>
        <source>run {run} stored as cancelled</source>
        <translation>运行 {run} 已保存为已取消</translation>
    </message>
    <message>
        <source>nothing stored</source>
        <translation>未保存任何内容</translation>
    </message>
    <message>
        <source>Stopped ({where}); {count} questions finished.</source>
        <translation>已停止（{where}）；完成了 {count} 道题。</translation>
    </message>
    <message>
        <source>not run</source>
        <translation>未运行</translation>
    </message>
    <message>
        <source>Not run.</source>
        <translation>未运行。</translation>
    </message>
    <message>
        <source>Stored run {run} ({status}): {name}</source>
        <translation>已保存的运行 {run}（{status}）：{name}</translation>
    </message>
    <message>
        <source>; 1 answer omits the ROUND the question asks for</source>
        <translation>；1 个答案遗漏了题目要求的 ROUND</translation>
    </message>
    <message>
        <source>; {count} answers omit the ROUND the question asks for</source>
        <translation>；{count} 个答案遗漏了题目要求的 ROUND</translation>
    </message>
    <message>
        <source>   (SIMULATED persona: not a model&apos;s score)</source>
        <translation>   （模拟角色：并非真实模型的成绩）</translation>
    </message>
    <message>
        <source>Passed: {counts}</source>
        <translation>通过：{counts}</translation>
    </message>
    <message>
        <source>Fast path</source>
        <translation>快速路径</translation>
    </message>
    <message>
        <source>Tool loop</source>
        <translation>工具循环</translation>
    </message>
    <message>
        <source>{path}: no question</source>
        <translation>{path}：没有题目</translation>
    </message>
    <message>
        <source>{path}: {count} of {total} questions ({share} %), passed {passed}; {tokens} tokens and {seconds} s per question</source>
        <translation>{path}：{total} 题中的 {count} 题（{share} %），通过 {passed}；每题 {tokens} token、{seconds} s</translation>
    </message>
    <message>
        <source>Evaluating model {model} on {endpoint}</source>
        <translation>正在 {endpoint} 上评测模型 {model}</translation>
    </message>
    <message>
        <source>Run {run}: model {model}</source>
        <translation>运行 {run}：模型 {model}</translation>
    </message>
    <message>
        <source>Model {model}</source>
        <translation>模型 {model}</translation>
    </message>
    <message>
        <source>Endpoint: none (choose one on the Endpoints page)</source>
        <translation>端点：无（请在“端点”页选择一个）</translation>
    </message>
    <message>
        <source>(first listed model)</source>
        <translation>（列出的第一个模型）</translation>
    </message>
    <message>
        <source>Endpoint: {endpoint}, model {model}</source>
        <translation>端点：{endpoint}，模型 {model}</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>How the Runs page, comparisons and reports name this run; empty: the name shown in grey</source>
        <translation>“运行记录”页、对比和报告中这次运行的名称；留空则使用灰色显示的名称</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>What is special about this run (optional)</source>
        <translation>这次运行有何特别之处（可选）</translation>
    </message>
    <message>
        <source>Server settings</source>
        <translation>服务器设置</translation>
    </message>
    <message>
        <source>e.g. max-num-seqs=2, gpu-memory-utilization=0.91</source>
        <translation>如 max-num-seqs=2, gpu-memory-utilization=0.91</translation>
    </message>
    <message>
        <source>key=value pairs, separated by commas. Settings the server reports are read automatically; type here only those it does not report.</source>
        <translation>key=value 形式，用逗号分隔。服务器自己报告的设置会自动读取；这里只需填写它不报告的设置。</translation>
    </message>
    <message>
        <source>default: the model and question set</source>
        <translation>默认：模型和题集</translation>
    </message>
    <message>
        <source>; {count} unfinished</source>
        <translation>；{count} 道未完成</translation>
    </message>
</context>
<context>
    <name>SqlComparisonModel</name>
    <message>
        <source>question</source>
        <translation>题目</translation>
    </message>
    <message>
        <source>tier</source>
        <translation>层级</translation>
    </message>
    <message>
        <source>all</source>
        <translation>全部</translation>
    </message>
    <message>
        <source>, {count} unfinished</source>
        <translation>，{count} 道未完成</translation>
    </message>
</context>
<context>
    <name>SqlEvalController</name>
    <message>
        <source>{text}: give one whole number</source>
        <translation>{text}：请填写一个整数</translation>
    </message>
    <message>
        <source>{text} is not a number</source>
        <translation>{text} 不是数字</translation>
    </message>
    <message>
        <source>{ids} is not in {set}</source>
        <translation>{ids} 不在 {set} 中</translation>
    </message>
    <message>
        <source>{ids} are not in {set}</source>
        <translation>{ids} 不在 {set} 中</translation>
    </message>
    <message>
        <source>no endpoint is active: choose one on the Endpoints page</source>
        <translation>没有当前端点：请在“端点”页选择一个</translation>
    </message>
    <message>
        <source>choose at least one tier</source>
        <translation>请至少选择一个层级</translation>
    </message>
    <message>
        <source>SQL evaluation: {done}/{total} questions</source>
        <translation>SQL 评测：{done}/{total} 道题</translation>
    </message>
    <message>
        <source>run {run} is a {kind} run, not a SQL evaluation</source>
        <translation>运行 {run} 是 {kind} 运行，不是 SQL 评测</translation>
    </message>
</context>
<context>
    <name>StepCard</name>
    <message>
        <source>no tool call</source>
        <translation>无工具调用</translation>
    </message>
    <message>
        <source>Step {step}</source>
        <translation>第 {step} 步</translation>
    </message>
    <message>
        <source>{prompt} + {completion} tokens</source>
        <translation>{prompt} + {completion} 个 token</translation>
    </message>
    <message>
        <source>{prompt} prompt tokens, {completion} completion tokens; the server answered in {seconds} s</source>
        <translation>提示 {prompt} 个 token，生成 {completion} 个 token；服务器用时 {seconds} 秒响应</translation>
    </message>
    <message>
        <source>Harness to model: {note}</source>
        <translation>评测框架对模型说：{note}</translation>
    </message>
    <message>
        <source> ... ({count} characters in all)</source>
        <translation> …（共 {count} 个字符）</translation>
    </message>
    <message>
        <source>Step error: {error}</source>
        <translation>步骤错误：{error}</translation>
    </message>
    <message>
        <source>Error: {error}</source>
        <translation>错误：{error}</translation>
    </message>
    <message>
        <source>(the result was cut before the model saw it)</source>
        <translation>（结果在交给模型前已被截断）</translation>
    </message>
</context>
<context>
    <name>StepTimeline</name>
    <message>
        <source>No steps recorded.</source>
        <translation>没有记录任何步骤。</translation>
    </message>
</context>
<context>
    <name>SweepForm</name>
    <message>
        <source>reading the file...</source>
        <translation>正在读取文件……</translation>
    </message>
</context>
<context>
    <name>TableCopier</name>
    <message>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <source>Copy as CSV</source>
        <translation>复制为 CSV</translation>
    </message>
    <message>
        <source>Copy as Markdown</source>
        <translation>复制为 Markdown</translation>
    </message>
</context>
<context>
    <name>ThroughputController</name>
    <message>
        <source>Throughput sweep starting</source>
        <translation>吞吐扫描正在启动</translation>
    </message>
    <message>
        <source>Throughput: cell {index}/{total}</source>
        <translation>吞吐：第 {index}/{total} 个单元</translation>
    </message>
</context>
<context>
    <name>ThroughputPage</name>
    <message>
        <source>No endpoint: choose an endpoint on the Endpoints page.</source>
        <translation>没有端点：请在“端点”页选择一个端点。</translation>
    </message>
    <message>
        <source>Asking the endpoint what it serves...</source>
        <translation>正在询问端点提供哪些模型…</translation>
    </message>
    <message>
        <source>Preparing prompts of each length...</source>
        <translation>正在准备各长度的提示…</translation>
    </message>
    <message>
        <source>Warming up...</source>
        <translation>正在预热…</translation>
    </message>
    <message>
        <source>Diagnosing...</source>
        <translation>正在诊断…</translation>
    </message>
    <message>
        <source>{done}/{planned} finished</source>
        <translation>已完成 {done}/{planned}</translation>
    </message>
    <message>
        <source>{label}: {n} records</source>
        <translation>{label}：{n} 条记录</translation>
    </message>
    <message>
        <source>prompts</source>
        <translation>提示</translation>
    </message>
    <message>
        <source>outputs</source>
        <translation>输出</translation>
    </message>
    <message>
        <source>{name} {bars} {low}-{high} tokens, mean {mean}</source>
        <translation>{name} {bars} {low}-{high} 个 token，平均 {mean}</translation>
    </message>
    <message>
        <source>replies at 4 characters a token here; the sweep counts them with the server&apos;s tokenizer when it has one</source>
        <translation>此处回复长度按每个 token 4 个字符估算；若服务器提供分词器，扫描时会用它统计</translation>
    </message>
    <message>
        <source>spans {seconds} s of timestamps</source>
        <translation>时间戳跨度 {seconds} 秒</translation>
    </message>
    <message>
        <source>{share} % of prompt blocks repeat an earlier record&apos;s</source>
        <translation>{share} % 的提示块与之前记录的相同</translation>
    </message>
    <message>
        <source>{n} left out (the first: {first})</source>
        <translation>跳过 {n} 条（第一条：{first}）</translation>
    </message>
    <message>
        <source>Sweep</source>
        <translation>扫描</translation>
    </message>
    <message>
        <source>Prompt lengths (tokens)</source>
        <translation>提示长度（token）</translation>
    </message>
    <message>
        <source>e.g. 512, 2k, 8k (k = 1024)</source>
        <translation>例如 512, 2k, 8k（k = 1024）</translation>
    </message>
    <message>
        <source>Concurrency (requests in flight)</source>
        <translation>并发数（同时在途的请求）</translation>
    </message>
    <message>
        <source>e.g. 1, 2, 4, 8</source>
        <translation>例如 1, 2, 4, 8</translation>
    </message>
    <message>
        <source>Output tokens</source>
        <translation>输出 token 数</translation>
    </message>
    <message>
        <source>e.g. 64 or 64, 256</source>
        <translation>例如 64 或 64, 256</translation>
    </message>
    <message>
        <source>Requests per cell</source>
        <translation>每个单元的请求数</translation>
    </message>
    <message>
        <source>empty: max(4 x concurrency, 8)</source>
        <translation>留空：max(4 × 并发数, 8)</translation>
    </message>
    <message>
        <source>Time budget per cell (s)</source>
        <translation>每个单元的时间预算（秒）</translation>
    </message>
    <message>
        <source>empty: no limit</source>
        <translation>留空：不限</translation>
    </message>
    <message>
        <source>sent once before the first cell and left out of every figure</source>
        <translation>在第一个单元之前发送一次，不计入任何统计</translation>
    </message>
    <message>
        <source>Processes that send the requests and read the streams, each with a CPU core of its own. 1 suits most sweeps. More helps at high concurrency or fast token rates, when one process falls behind and stamps tokens late (the Diagnosis says the client was busy); more than the machine has cores does not.</source>
        <translation>发送请求并读取流的进程，每个占用一个 CPU 核心。大多数扫描用 1 个即可。在高并发或 token 速率很快、单个进程跟不上而延迟记录 token 时间时（诊断会指出客户端过忙），增加进程会有帮助；超过本机核心数则无益。</translation>
    </message>
    <message>
        <source>Unique prompts (bust the prefix cache)</source>
        <translation>每次使用不同提示（绕过前缀缓存）</translation>
    </message>
    <message>
        <source>Scrape the server&apos;s /metrics</source>
        <translation>抓取服务器的 /metrics</translation>
    </message>
    <message>
        <source>Warm-up requests</source>
        <translation>预热请求数</translation>
    </message>
    <message>
        <source>API</source>
        <translation>API</translation>
    </message>
    <message>
        <source>Load-generating processes</source>
        <translation>负载生成进程数</translation>
    </message>
    <message>
        <source>Start</source>
        <translation>开始</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>ShareGPT JSON, a JSONL of prompt or messages, or a Mooncake trace; empty: the prompt lengths above</source>
        <translation>ShareGPT JSON、含 prompt 或 messages 的 JSONL，或 Mooncake 轨迹；留空：使用上面的提示长度</translation>
    </message>
    <message>
        <source>optional: a file of requests to replay</source>
        <translation>可选：要回放的请求文件</translation>
    </message>
    <message>
        <source>File...</source>
        <translation>文件…</translation>
    </message>
    <message>
        <source>Workload</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>Send on its timestamps (one cell)</source>
        <translation>按其时间戳发送（一个单元）</translation>
    </message>
    <message>
        <source>Each record is sent at its own time from the first, and the cell says how late each send was; otherwise one cell per concurrency, in a closed loop.</source>
        <translation>每条记录按其相对第一条的时间发送，单元会报告每次发送晚了多少；否则每个并发数一个单元，闭环发送。</translation>
    </message>
    <message>
        <source>empty: 1 (as recorded)</source>
        <translation>留空：1（按记录的速度）</translation>
    </message>
    <message>
        <source>Replay the timestamps this many times faster</source>
        <translation>以此倍数加快回放时间戳</translation>
    </message>
    <message>
        <source>Speed-up (x)</source>
        <translation>加速倍数（x）</translation>
    </message>
    <message>
        <source>Workload file</source>
        <translation>负载文件</translation>
    </message>
    <message>
        <source>Workload files (*.json *.jsonl);;All files (*)</source>
        <translation>负载文件 (*.json *.jsonl);;所有文件 (*)</translation>
    </message>
    <message>
        <source>Sessions and targets</source>
        <translation>会话与目标</translation>
    </message>
    <message>
        <source>Turns per session</source>
        <translation>每个会话的轮数</translation>
    </message>
    <message>
        <source>empty: single requests; N: conversations of N turns, each reply in the next turn&apos;s history (chat API)</source>
        <translation>留空：单个请求；N：N 轮的对话，每次回复都进入下一轮的历史（聊天 API）</translation>
    </message>
    <message>
        <source>Think time between turns (s)</source>
        <translation>两轮之间的思考时间（秒）</translation>
    </message>
    <message>
        <source>empty: 0</source>
        <translation>留空：0</translation>
    </message>
    <message>
        <source>Shared system prompt (tokens)</source>
        <translation>共享系统提示（token）</translation>
    </message>
    <message>
        <source>empty: none; one system prompt for a cell&apos;s sessions</source>
        <translation>留空：无；一个单元内所有会话共用一个系统提示</translation>
    </message>
    <message>
        <source>TTFT target (s)</source>
        <translation>TTFT 目标（秒）</translation>
    </message>
    <message>
        <source>empty: none; requests meeting every target count as goodput</source>
        <translation>留空：无；满足所有目标的请求计为有效吞吐（goodput）</translation>
    </message>
    <message>
        <source>TPOT target (s)</source>
        <translation>TPOT 目标（秒）</translation>
    </message>
    <message>
        <source>empty: none</source>
        <translation>留空：无</translation>
    </message>
    <message>
        <source>Find the highest load meeting the targets</source>
        <translation>寻找仍满足目标的最高负载</translation>
    </message>
    <message>
        <source>Instead of the concurrency list: probes from 1, doubling until the targets are missed, then halving the gap; says where the knee lies and how sure that is.</source>
        <translation>代替并发数列表：从 1 开始探测，加倍直到未满足目标，再二分缩小区间；给出拐点所在的位置及其可信程度。</translation>
    </message>
    <message>
        <source>empty: 0.9 (90 % of requests)</source>
        <translation>留空：0.9（90 % 的请求）</translation>
    </message>
    <message>
        <source>Share of requests</source>
        <translation>请求比例</translation>
    </message>
    <message>
        <source>Set up a sweep and press Start.</source>
        <translation>设置好扫描参数后点击“开始”。</translation>
    </message>
    <message>
        <source>prompt length (tokens)</source>
        <translation>提示长度（token）</translation>
    </message>
    <message>
        <source>Prefill tok/s per request (queueing included)</source>
        <translation>单请求 Prefill tok/s（含排队）</translation>
    </message>
    <message>
        <source>Decode tok/s per request</source>
        <translation>单请求 Decode tok/s</translation>
    </message>
    <message>
        <source>Server: running, waiting, KV cache</source>
        <translation>服务器：运行中、等待中、KV cache</translation>
    </message>
    <message>
        <source>time since start (s)</source>
        <translation>开始后的时间（秒）</translation>
    </message>
    <message>
        <source>requests / KV %</source>
        <translation>请求数 / KV %</translation>
    </message>
    <message>
        <source>Cells</source>
        <translation>单元</translation>
    </message>
    <message>
        <source>Diagnosis</source>
        <translation>诊断</translation>
    </message>
    <message>
        <source>Results</source>
        <translation>结果</translation>
    </message>
    <message>
        <source>What if</source>
        <translation>假设分析</translation>
    </message>
    <message>
        <source>Endpoint: {endpoint}</source>
        <translation>端点：{endpoint}</translation>
    </message>
    <message>
        <source>Starting...</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <source>Predicting what each suggestion would change: fitting the engine model to the sweep ({percent} %)...</source>
        <translation>正在预测每条建议会带来的变化：将引擎模型拟合到本次扫描（{percent} %）...</translation>
    </message>
    <message>
        <source>  -  ETA {clock}</source>
        <translation>  -  预计剩余 {clock}</translation>
    </message>
    <message>
        <source>Cell {index}/{cells}: {cell}  -  {done}/{total} requests</source>
        <translation>单元 {index}/{cells}：{cell}  -  {done}/{total} 个请求</translation>
    </message>
    <message>
        <source>Stopped: the run is stored as cancelled.</source>
        <translation>已停止：该运行已保存为已取消。</translation>
    </message>
    <message>
        <source>Failed: {message}</source>
        <translation>失败：{message}</translation>
    </message>
    <message>
        <source>Run {run}</source>
        <translation>运行 {run}</translation>
    </message>
    <message>
        <source>The sweep</source>
        <translation>本次扫描</translation>
    </message>
    <message>
        <source>{run} {status}: {cells} cells, {findings} findings.</source>
        <translation>{run} {status}：{cells} 个单元，{findings} 条发现。</translation>
    </message>
    <message>
        <source>Choose an endpoint first (the run&apos;s server, running again).</source>
        <translation>请先选择端点（该运行的服务器，需重新运行）。</translation>
    </message>
    <message>
        <source>A sweep is running: stop it before resuming another.</source>
        <translation>正在进行扫描：请先停止它，再继续另一个。</translation>
    </message>
    <message>
        <source>Resuming run #{run}...</source>
        <translation>正在继续运行 #{run}...</translation>
    </message>
    <message>
        <source>The diagnosis could not be rebuilt from the stored run: {error}</source>
        <translation>无法根据已保存的运行重建诊断：{error}</translation>
    </message>
    <message>
        <source>This run&apos;s diagnosis was not kept when it ended (an older or imported run): it is rebuilt here from the stored requests.</source>
        <translation>该运行结束时没有保存诊断（较旧或导入的运行）：这里根据已保存的请求重新生成。</translation>
    </message>
    <message>
        <source>Run {run}: {name} ({status}, {cells} cells)</source>
        <translation>运行 {run}：{name}（{status}，{cells} 个单元）</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <source>KV cache %</source>
        <translation>KV 缓存 %</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>How the Runs page, comparisons and reports name this run; empty: the name shown in grey</source>
        <translation>“运行记录”页、对比和报告中这次运行的名称；留空则使用灰色显示的名称</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>What is special about this run (optional)</source>
        <translation>这次运行有何特别之处（可选）</translation>
    </message>
    <message>
        <source>Server settings</source>
        <translation>服务器设置</translation>
    </message>
    <message>
        <source>e.g. max-num-seqs=2, gpu-memory-utilization=0.91</source>
        <translation>如 max-num-seqs=2, gpu-memory-utilization=0.91</translation>
    </message>
    <message>
        <source>key=value pairs, separated by commas. Settings the server reports are read automatically; type here only those it does not report.</source>
        <translation>key=value 形式，用逗号分隔。服务器自己报告的设置会自动读取；这里只需填写它不报告的设置。</translation>
    </message>
    <message>
        <source>default: the model, prompt lengths and load</source>
        <translation>默认：模型、提示长度和负载</translation>
    </message>
</context>
<context>
    <name>TierChart</name>
    <message>
        <source>Pass rate (%)</source>
        <translation>通过率（%）</translation>
    </message>
    <message>
        <source>Mean tokens</source>
        <translation>平均 token 数</translation>
    </message>
    <message>
        <source>Mean steps</source>
        <translation>平均步数</translation>
    </message>
    <message>
        <source>By tier, per question. Pass rate per judge: {key}</source>
        <translation>按层级统计，每题平均。各评判器通过率：{key}</translation>
    </message>
</context>
<context>
    <name>TranscriptPanel</name>
    <message>
        <source>(SIMULATED)</source>
        <translation>（模拟）</translation>
    </message>
    <message>
        <source>Run {run} “{name}” · {model}</source>
        <translation>运行 {run}“{name}” · {model}</translation>
    </message>
    <message>
        <source>epoch {epoch} · {status} · stopped: {stop} · 1 step · {tokens} tokens</source>
        <translation>第 {epoch} 轮 · {status} · 停止原因：{stop} · 1 步 · {tokens} 个 token</translation>
    </message>
    <message>
        <source>epoch {epoch} · {status} · stopped: {stop} · {steps} steps · {tokens} tokens</source>
        <translation>第 {epoch} 轮 · {status} · 停止原因：{stop} · {steps} 步 · {tokens} 个 token</translation>
    </message>
    <message>
        <source>no final SQL</source>
        <translation>没有最终 SQL</translation>
    </message>
</context>
<context>
    <name>WhatifPanel</name>
    <message>
        <source>No sweep yet: finish one, or open one from the Runs page.</source>
        <translation>还没有扫描：完成一次扫描，或从“运行”页打开一个。</translation>
    </message>
    <message>
        <source>Engine settings</source>
        <translation>引擎设置</translation>
    </message>
    <message>
        <source>requests the server runs at once (--parallel on llama.cpp, --max-running-requests on SGLang)</source>
        <translation>服务端同时运行的请求数（llama.cpp 为 --parallel，SGLang 为 --max-running-requests）</translation>
    </message>
    <message>
        <source>tokens one engine step may take (chunked prefill budget; --ubatch-size on llama.cpp)</source>
        <translation>引擎每步可处理的 token 数（分块 Prefill 预算；llama.cpp 为 --ubatch-size）</translation>
    </message>
    <message>
        <source>KV cache in tokens, or a factor of the fitted one: x1.5</source>
        <translation>KV 缓存的 token 数，或拟合值的倍数：x1.5</translation>
    </message>
    <message>
        <source>Predict</source>
        <translation>预测</translation>
    </message>
    <message>
        <source>How well the model fits</source>
        <translation>模型拟合程度</translation>
    </message>
    <message>
        <source>Prefill tok/s per request</source>
        <translation>单请求 Prefill tok/s</translation>
    </message>
    <message>
        <source>Decode tok/s per request</source>
        <translation>单请求 Decode tok/s</translation>
    </message>
    <message>
        <source>concurrency</source>
        <translation>并发</translation>
    </message>
    <message>
        <source>Solid: measured. Dashed: predicted by the fitted model with the settings on the left (simulated in virtual time). One line per prompt length (tokens).</source>
        <translation>实线：实测。虚线：拟合模型按左侧设置的预测（虚拟时间模拟）。每个提示长度（token）一条线。</translation>
    </message>
    <message>
        <source>input</source>
        <translation>输入</translation>
    </message>
    <message>
        <source>load</source>
        <translation>负载</translation>
    </message>
    <message>
        <source>fit TTFT</source>
        <translation>拟合 TTFT</translation>
    </message>
    <message>
        <source>fit prefill</source>
        <translation>拟合 Prefill</translation>
    </message>
    <message>
        <source>fit decode</source>
        <translation>拟合 Decode</translation>
    </message>
    <message>
        <source>Output tok/s</source>
        <translation>输出 tok/s</translation>
    </message>
    <message>
        <source>fitted model against measured: predicted / measured - 1</source>
        <translation>拟合模型与实测之比：预测值 / 实测值 - 1</translation>
    </message>
    <message>
        <source>the fitted model as measured -&gt; with the settings changed</source>
        <translation>拟合模型（实测设置）-&gt; 改变设置后</translation>
    </message>
    <message>
        <source>change</source>
        <translation>变化</translation>
    </message>
    <message>
        <source>Run {run}: open this tab to fit the engine model to it.</source>
        <translation>运行 {run}：打开此页即可为其拟合引擎模型。</translation>
    </message>
    <message>
        <source>Fitting the engine model to run {run}: every cell is simulated in virtual time...</source>
        <translation>正在为运行 {run} 拟合引擎模型：每个单元都以虚拟时间模拟……</translation>
    </message>
    <message>
        <source>The model cannot be fitted to this run: {reason}</source>
        <translation>无法用此运行拟合模型：{reason}</translation>
    </message>
    <message>
        <source>Run {run}: {name}, {cells} cells fitted. Predicted figures are simulated in virtual time.</source>
        <translation>运行 {run}：{name}，已拟合 {cells} 个单元。预测数字均为虚拟时间模拟。</translation>
    </message>
    <message>
        <source>as fitted: {value}</source>
        <translation>拟合值：{value}</translation>
    </message>
    <message>
        <source>Worst cell error (predicted / measured - 1): TTFT p50 {ttft}, prefill {prefill}, decode {decode}.</source>
        <translation>最大单元误差（预测值 / 实测值 - 1）：TTFT p50 {ttft}，Prefill {prefill}，Decode {decode}。</translation>
    </message>
    <message>
        <source>Suggested: {change}</source>
        <translation>建议：{change}</translation>
    </message>
    <message>
        <source>What the diagnosis suggests for this run: fill the fields with it and predict</source>
        <translation>诊断对此运行的建议：填入字段并预测</translation>
    </message>
    <message>
        <source>unlimited</source>
        <translation>不限</translation>
    </message>
    <message>
        <source>reported by the server</source>
        <translation>服务端报告</translation>
    </message>
    <message>
        <source>from the sweep</source>
        <translation>来自扫描</translation>
    </message>
    <message>
        <source>fitted</source>
        <translation>拟合</translation>
    </message>
    <message>
        <source>assumed</source>
        <translation>假定</translation>
    </message>
    <message>
        <source>the diagnosis saw requests queue behind this many</source>
        <translation>诊断观察到请求在此上限后排队</translation>
    </message>
    <message>
        <source>no queue was seen: at least the largest concurrency run; a sweep at higher concurrency would identify it</source>
        <translation>未观察到排队：至少为所测的最大并发数；更高并发的扫描可确定它</translation>
    </message>
    <message>
        <source>not reported by the server: vLLM&apos;s default</source>
        <translation>服务端未报告：采用 vLLM 的默认值</translation>
    </message>
    <message>
        <source>not identified: the server did not report it and the sweep never filled it (at most {tokens} tokens held at once); longer prompts at higher concurrency would identify it</source>
        <translation>无法确定：服务端未报告，扫描也从未占满（同时最多占用 {tokens} 个 token）；更长提示、更高并发的扫描可确定它</translation>
    </message>
    <message>
        <source>not identified: needs three prompt lengths or more at concurrency 1 whose TTFT grows faster than the length; taken as no slowdown</source>
        <translation>无法确定：需要在并发 1 下有三个以上的提示长度，且 TTFT 的增长快于长度；按无减速处理</translation>
    </message>
    <message>
        <source>Extrapolated: the sweep measured batches of at most {n} requests, so the decode cost of larger batches is the fitted line carried past what was measured (docs/WHATIF.md says how well that held on llama.cpp).</source>
        <translation>外推：压测实测的批次最多为 {n} 个请求，更大批次的 Decode 开销是把拟合直线延伸到实测范围之外得到的（在 llama.cpp 上的准确度见 docs/WHATIF.md）。</translation>
    </message>
</context>
<context>
    <name>Worker</name>
    <message>
        <source>The {name} process ended unexpectedly (exit code {code}).</source>
        <translation>{name} 进程意外退出（退出码 {code}）。</translation>
    </message>
</context>
</TS>
