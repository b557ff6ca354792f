"""Parsers for what users type: lists of token counts, concurrency levels, durations.

Each parser raises `InputError` whose message names the field and the offending item, so the
command line and the forms can show it as is.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
import re


# The English of each InputError code, formatted with its params: the exception's own message
# and the English the CLI and the window show (`report.input_words` adds Chinese).
INPUT_MESSAGES: dict[str, str] = {
    "empty_int_list": "give at least one value, e.g. 1,2,4",
    "empty_float_list": "give at least one value, e.g. 0.5,1,2",
    "empty": "give at least one value",
    "one_value": "give one value",
    "give_values": "give one or more values",
    "not_whole": "{item} is not a whole number (examples: 512, 2048, 4k)",
    "too_large": "{item} is too large",
    "below_min": "{item} is below the minimum of {low}",
    "above_max": "{item} is above the maximum of {high}",
    "not_number": "{item} is not a number",
    "not_above": "{item} must be a number above {low:g}",
    "out_of_range": "{item} must be a number above {low:g} and at most {high:g}",
    "out_of_range_s": "{item} must be a number above {low:g} and at most {high:g} seconds",
    "positive_at_most": "{item} must be a positive number of at most {high:,.0f}",
    "whole_from_to": "{item} must be a whole number from {low:,} to {high:,}",
    "more_than": "{item} is more than {high:,}",
    "positive_seconds": "{item} must be a positive number of seconds",
    "negative": "{item} must not be negative",
    "choose_model": "choose a model (the endpoint's /v1/models lists them)",
    "route_tiers": "{item}: name tiers after tier: from {tiers} (e.g. tier:hard,medium)",
    "route_unknown": "{item}: choose validate, always-loop or tier:<tiers> (e.g. "
                     "tier:hard,medium)",
    "no_models_listed": "the endpoint lists no models; name one",
    "model_not_served": "{item} is not served by {url}; it serves: {models}",
    "too_many_values": "{n:,} values: at most {high:,}",
    "seconds_at_most": "{item} must be a positive number of seconds (at most {high:g})",
    "out_of_bounds": "{item} is out of range ({low:,} to {high:,})",
    "need_input_tokens": "give the prompt lengths to sweep, e.g. 512,2048",
    "not_requests_plan": "{item} is not 'wave', 'sweep' or a number",
    "cannot_write": "cannot write {path}: {error}",
    "url_empty": "empty (e.g. http://localhost:8000)",
    "url_space": "contains a space: {url}",
    "url_no_scheme": "no scheme in {url}: start it with http:// or https://",
    "url_unreadable": "cannot be read: {url} ({detail})",
    "url_scheme": "unsupported scheme {scheme} in {url}: use http:// or https://",
    "url_no_host": "no host in {url}",
    "url_port": "bad port in {url}",
    "url_query": "remove the query or fragment from {url}",
    "url_unusable": "cannot be used: {url} ({detail})",
    "no_run": "no run {run} in {path}",
    "set_key": "expected KEY=VALUE with KEY one of {keys} (or an engine's name for one)",
    "set_not_number": "{text} is not a number",
    "set_not_positive": "must be positive",
    "set_whole": "{setting} takes a whole number",
    "unknown_choice": "unknown {items}; choose from {choices}",
    "choose_from": "choose from {choices}",
    "at_least_one_judge": "choose at least one judge",
    "not_negative_number": "{item} must be a number >= 0",
    "name_a_set": "name a bundled set (e.g. sales-25) or a set folder",
    "no_set": "{name}: no question set there (a folder holding {file}); sets by name: {names}",
    "unknown_profile": "unknown simulator profile {name} (available: {known})",
    "profile_not_found": "profile file not found: {path}",
    # A length axis's value (`throughput.lengths`).
    "lengths_syntax": "{item} is not a length: write a count (512, 4k), N(mean,sd), "
                      "N(mean,sd,min,max), U(min,max) or F(file)",
    "lengths_bounds": "{item}: the smallest length ({low}) is above the largest ({high})",
    "lengths_mean_outside": "{item}: the mean is outside its bounds ({low} to {high})",
    "lengths_file_line": "{path}:{line}: {item} is not a whole number from 1 to {high}",
    "lengths_file_empty": "{path}: no lengths in it (one whole number per line)",
    "text_not_utf8": "{path}: not UTF-8 text (byte offset {offset})",
    # A workload file (`throughput.workload`) and the records it left out.
    "workload_empty": "{path}: no record of this {format} file can be sent ({skipped} left "
                      "out; the first: {first})",
    "workload_unknown": "{path}: not a workload this knows (a ShareGPT JSON list, a JSONL of "
                        "prompt or messages, or a Mooncake trace)",
    "workload_untimed": "{path}: its records do not all have a timestamp: it can be replayed "
                        "in a closed loop, not on its schedule",
    "workload_changed": "{path} is not the file the run replayed (its SHA-256 began {digest})",
    "workload_one_process": "a workload replayed on its schedule is sent from one process "
                            "(--workers 1, no --ray)",
    "workload_skipped_line": "line {line}: {why}",
    "replay_no_tasks": "run {run} recorded no model call to replay",
    "sessions_how": "multi-turn sessions are sent to a chat endpoint in a closed loop, from one "
                    "process (--api chat, --concurrency, --workers 1; no --request-rate, "
                    "--workload, --find-max or --ray)",
    "find_max_needs_target": "the search for the highest load needs a target: --ttft-target "
                             "or --tpot-target",
    "find_max_one_shape": "the search for the highest load measures one prompt length and one "
                          "output length (or a workload in a closed loop)",
    "resume_find_max": "run {run} searched for the highest load; a search is run again, not "
                       "resumed",
    "workload_skip_no_conversations": "no conversations list",
    "workload_skip_list_broken": "the list cannot be read from here on (not JSON, or the file "
                                 "is cut short)",
    "workload_skip_no_exchange": "no human turn followed by a reply",
    "workload_skip_too_long": "a prompt of {chars:,} characters (at most {high:,})",
    "workload_skip_not_json": "not JSON",
    "workload_skip_not_object": "not a JSON object",
    "workload_skip_no_prompt": "no prompt or messages",
    "workload_skip_bad_lengths": "input_length and output_length must be whole numbers from 1 "
                                 "to {high:,}",
    "workload_skip_bad_timestamp": "timestamp {value} is not milliseconds from 0",
    "workload_skip_bad_hash_ids": "hash_ids must be a list of at most {high:,} whole numbers",
    "workload_skip_hash_ids_longer": "{blocks} hash ids for {input} input tokens (a block is "
                                     "512 tokens)",
    "workload_skip_bad_messages": "messages must be a list of {{role, content}} texts",
    "workload_skip_bad_max_tokens": "max_tokens {value} is not a whole number from 1 to "
                                    "{high:,}",
    # The simulator's profile, faults and server, and the sweep's worker processes and Ray.
    "fault_not_number": "fault {item}: probability must be a number",
    "fault_probability": "fault {item}: probability must be between 0 and 1",
    "fault_twice": "fault {item}: {name} given twice",
    "fault_option_value": "fault option {item}: needs a value ({name}=...)",
    "fault_unknown": "unknown fault {name} in {item} (known: {known})",
    "fault_sum": "fault probabilities add up to {total}; each request gets at most one fault, so they must add up to at most 1",
    "fault_option_whole": "fault option {item}: must be a non-negative integer",
    "fault_option_number": "fault option {item}: must be a finite non-negative number",
    "fault_header": "unknown fault {fault} in {header} (known: {known}, none)",
    "sim_port_in_use": "port {port} on {host} is in use",
    "sim_cannot_listen": "cannot listen on {host} port {port}: {detail}",
    "sim_not_started": "simulator did not start: {detail}",
    "sim_start_timeout": "simulator did not start within {seconds} s",
    "sim_not_ready": "simulator did not become ready within {seconds} s{detail}",
    "sim_exited": "simulator exited with status {status}{detail}",
    "profile_not_utf8": "{where}: not UTF-8 text (byte {byte})",
    "profile_not_toml": "{where}: {detail}",
    "profile_unknown_key": "{where}: {key}: unknown key (known: {known})",
    "profile_not_integer": "{where}: {key}: must be an integer, got {value}",
    "profile_not_number": "{where}: {key}: must be a number, got {value}",
    "profile_negative": "{where}: {key}: must not be negative, got {value}",
    "profile_infinite": "{where}: {key}: must be finite, got inf",
    "profile_not_string": "{where}: {key}: must be a string, got {value}",
    "profile_not_positive": "{where}: {key}: must be positive, got {value}",
    "profile_len_over_cache": "{where}: {key}: max_model_len ({max_model_len}) must not exceed kv_cache_tokens ({kv_cache_tokens}): a request that long could never be scheduled",
    "ray_not_installed": "Ray is not installed; install it with {install}",
    "ray_import_failed": "Ray could not be imported ({detail}); reinstall it with {install}",
    "ray_connect": "cannot connect to Ray at {address}: {detail}",
    "ray_not_ready": "{count} Ray actors were not ready within {seconds} s (does the cluster at {address} have room?)",
    "ray_actor_start": "a Ray actor did not start ({detail}); throughline must be installed on every node ({install})",
    "ray_actor_failed": "Ray actor {actor} on {host} failed: {detail}",
    "worker_not_started": "worker {pid} did not start: {detail}",
    "worker_failed": "worker {pid} failed: {detail}",
    "virtual_tokens_min": "input and output tokens must be at least 1 (got {input}, {output})",
    "virtual_over_len": "{input} + {output} tokens exceed profile {profile}'s max_model_len of "
                        "{high}",
    "virtual_over_cache": "{input} + {output} tokens cannot fit profile {profile}'s KV cache of "
                          "{high} tokens",
    "worker_died": "worker {pid} died (exit code {status}): {detail}",
    # Server settings the user typed (`server_settings.parse_user_settings`).
    "settings_too_many": "{n} settings given; at most {high}",
    "setting_no_equals": "setting {position} {item}: expected KEY=VALUE, e.g. max-num-seqs=2",
    "setting_empty_key": "setting {position} {item}: the key before '=' is empty",
    "setting_bad_key": "setting {position} {item}: the key must be letters, digits, '-' or '_'",
    "setting_no_value": "setting {position} {item}: no value after '='",
    "setting_too_long": "setting {position} {item}: the value is {size} characters; at most "
                        "{high}",
    "setting_twice": "setting {position} {item}: {key_name} is given twice",
    "whole_at_least_1": "{item} must be a whole number of at least 1",
    "set_no_database": "the set {set} has no database {key_name}",
    "cannot_open_db": "cannot open database {path}: {detail}",
    "no_question_matches": "no question of {set} matches the tiers/ids chosen",
    "setting_type": "{key_name}: a setting is text or a number",
    "ray_not_text": "{item} must be an address text",
    "ray_address": "{item} must be auto, local, ray://host:10001 or host:6379 (no "
                   "user:password@)",
    # A run that cannot be resumed (`throughput.resume.ResumeError`).
    "not_a_sweep_config": "the stored configuration is not a sweep's (keys: {keys})",
    "resume_not_throughput": "run {run} is a {kind} run; resume finishes throughput sweeps "
                             "(run the evaluation again instead)",
    "resume_completed": "run {run} is completed; there is nothing to resume",
    "resume_running": "run {run} is still running (process {pid} on {host}); stop it first, or "
                      "wait for it to end",
    "resume_status": "run {run} has status {status}, which cannot be resumed",
    "resume_cell_mismatch": "run {run}: stored cell {cell} ({input} in, {output} out) does not "
                            "match its configuration",
    "resume_raced": "run {run} was resumed or changed by another process meanwhile",
    "resume_no_url": "run {run} has no stored endpoint URL; give the endpoint",
    "resume_other_engine": "run {run} measured a {engine} endpoint; {url} is {now}",
    # A sweep the engine model cannot be fitted to (`core.fit.FitError`).
    "fit_no_single": "the sweep has no completed request at concurrency 1: prefill cannot be "
                     "told from queueing without one",
    "fit_no_decode": "no request at concurrency 1 generated two tokens or more: decode cannot "
                     "be fitted",
    "fit_no_cells": "the sweep has no closed-loop cell with requests",
    # A file the user named (`core.files.LocalFileError`'s codes, as "file_<code>").
    "file_missing": "no such file",
    "file_is_directory": "is a folder, not a file",
    "file_not_regular": "is a {kind}, not a regular file",
    "file_too_large": "{size:,} bytes, more than the {limit:,} {what} may have",
    "file_symlink_loop": "is a loop of symbolic links",
    "file_unreadable": "cannot be read: {reason}",
    "file_outside_folder": "leads outside {folder} (to {target}); only files inside it are read",
    # A results file that is not what an import reads.
    "not_utf8": "line {line}: not UTF-8 text (byte 0x{byte:02x} at offset {offset}); is it a "
                "results file?",
    "empty_file": "is empty",
    "json_too_deep": "JSON nested too deeply to be a results file",
    "json_line_too_deep": "line {line}: JSON nested too deeply",
    "json_truncated": "line {line}: ends before the JSON is complete (truncated?)",
    "json_invalid": "line {line}: not valid JSON: {detail}",
    "not_sql_run": "run {run} is a {kind} run, not a SQL evaluation",
    # A results file an import cannot read (`exchange`; {tools} names the tools it reads).
    "import_not_json_or_csv": "line 1 is neither JSON nor AIPerf's CSV ({first}); not a result "
                              "file of {tools} that this Throughline knows",
    "import_json_lines_unknown": "{n} JSON lines, not all vllm bench serve results or AIPerf "
                                 "records; not a result file of {tools} that this Throughline "
                                 "knows",
    "import_json_keys_unknown": "JSON with {keys}; not a result file of {tools} that this "
                                "Throughline knows",
    "import_json_empty": "an empty JSON object; not a result file of {tools} that this "
                         "Throughline knows",
    "json_list": "list", "json_text": "string", "json_null": "null", "json_bool": "true or false",
    "json_number": "number",
    "import_json_kind": "a JSON {kind}; not a result file of {tools} that this Throughline "
                        "knows",
    "import_wrong_value": "looks like a {label} result but holds a value it should not "
                          "({detail})",
    "import_own_export": "is a Throughline export (its runs are already in a Throughline "
                         "store); import reads other tools' results",
    "import_newer_aiperf": "written by AIPerf {tool_version} with export schema {version}; this "
                           "Throughline reads AIPerf export schema {known}.x. Upgrade "
                           "Throughline to import it.",
    "import_newer_guidellm": "written by GuideLLM {tool_version} with report schema version "
                             "{version}; this Throughline reads GuideLLM report version "
                             "{known}. Upgrade Throughline to import it.",
    "import_aiperf_bad_version": "AIPerf schema_version {version} is not a version",
    "import_not_time_unit": "{tag}: unit {unit} is not a time unit",
    "import_not_rate_unit": "{tag}: unit {unit} is not tokens/sec",
    "import_aiperf_no_metrics": "an AIPerf export without any of its metrics ({tags})",
    "import_csv_not_number": "line {line}: {name}: {key} {cell} is not a number",
    "import_aiperf_csv_no_metrics": "an AIPerf-style CSV without any AIPerf metric rows",
    "import_aiperf_no_requests": "AIPerf records with no profiling-phase request",
    "import_guidellm_no_metrics": "a GuideLLM benchmark without 'metrics'",
    "import_guidellm_no_benchmarks": "a GuideLLM report with no benchmarks",
    "import_not_number": "{key} should be a number, not {value}",
    "import_list_length": "{key} should list {n} requests like 'ttfts'",
    "import_not_vllm_result": "result {number} is not a vllm bench serve result (no 'completed' "
                              "and 'mean_ttft_ms')",
    "import_implausible": "{place}: {key} is {value}, {why}; the file is damaged or not what it "
                          "claims, and nothing was imported",
    # Its parts (`Phrase`s of import_implausible).
    "place_result": "result {result}",
    "place_request": "result {result}, request {request}",
    "why_not_finite": "not a finite number",
    "why_negative": "negative",
    "why_beyond": "more than {high:g}, which no benchmark measures",
    "why_too_many_tokens": "more than the {high:,} tokens any request has",
    "tools_or": "{first} or {last}",
    # A question set an import cannot read (`sqleval.importers`).
    # {format_flag} and {db_flag} name where the reader gives the format and the databases:
    # the CLI's flags, the import dialog's fields.
    "qs_not_spider2": "{source}:1: not a Spider2-lite record (no instance_id); name the format "
                      "with {format_flag}",
    "qs_file": "{path}: {problem}",
    "qs_set_file_missing": "{path}: missing (one JSON object per line)",
    "qs_set_file_empty": "{path}: no questions (one JSON object per line)",
    "qs_set_not_utf8": "{path}:{line}: not UTF-8 text: byte 0x{byte:02x} at byte offset "
                       "{offset}; save the file as UTF-8",
    "qs_not_json": "{source}: not JSON; name the format with {format_flag}",
    "qs_unknown_format": "{source}: cannot tell the format (expected a Spider or BIRD list, a "
                         "Spider2-lite JSONL or a defog CSV); name it with {format_flag}",
    "qs_format": "--format: {item} is not one of {choices}",
    "qs_out_not_empty": "--out: {path} already exists and is not an empty folder; choose "
                        "another --out or remove it first",
    "qs_not_utf8": "{path}: not UTF-8 (byte offset {offset})",
    "qs_json_invalid": "{source}:{line}: not valid JSON: {detail}",
    "qs_json_too_deep": "{source}: not valid JSON: nested too deeply",
    "qs_not_a_list": "{source}: expected a JSON list of questions",
    "qs_missing_columns": "{source}:1: missing column(s): {columns}",
    "qs_no_db_name": "{source}: no row has db_name {db_name}",
    "qs_bad_name": "--name: {item} is not a set name: use up to 100 letters, digits, '.', '_' "
                   "and '-', not starting with '.' or '-'",
    "qs_need_db_dir": "{db_flag}: needed for {format} (the folder holding <db>/<db>.sqlite or "
                      "<db>.sqlite)",
    "qs_no_db_dir": "{db_flag}: no such folder: {path}",
    "qs_nothing_imported": "{source}: no question could be imported ({n} records skipped)",
    # A sweep file (`throughput --config FILE`) that cannot be read.
    "sweep_not_utf8": "not UTF-8 text",
    "toml_syntax": "{detail}",
    "sweep_too_deep": "nested too deeply to be a sweep file",
    "sweep_api_key": "API keys do not go in files; use --api-key-env",
    "sweep_unknown_key": "unknown key (known: {known})",
    "sweep_key_type": "must be {kind}, got {value}",
    "kind_text": "a string", "kind_api": '"chat" or "completions"',
    "kind_http_client": '"lean" or "httpx"',
    "kind_whole_list": 'a whole number, a list of them or a text like "512,4k"',
    "kind_number_list": "a number or a list of numbers", "kind_whole": "a whole number",
    "kind_number": "a number", "kind_bool": "true or false",
    # A prompt of the asked length that cannot be built (`throughput.prompts.PromptError`).
    "prompt_salt_range": "Request index {index} is out of range for salts (0..{high}).",
    "prompt_at_least_1": "A prompt length must be at least 1 token (got {target}).",
    "prompt_no_fit": "A prompt of {target} tokens does not fit: the server's context is {limit} "
                     "tokens, prompt plus at least one output token.",
    "prompt_too_short": "A prompt of {target} tokens is too short: {what} alone take {base} "
                        "tokens on this server.",
    "what_salt": "the per-request salt", "what_server_adds": "what the server adds",
    "what_salt_chat": "the per-request salt and the chat template",
    "what_server_adds_chat": "what the server adds and the chat template",
    "prompt_shortest": "A prompt of {target} tokens is too short for this server: the shortest "
                       "one it can build here counts {shortest} tokens.",
    "prompt_not_within": "Could not build a prompt of {target} tokens within 1 %: the closest "
                         "was {tokens} tokens.",
    "prompt_no_token_list": "Could not build a prompt of {target} tokens: the tokenizer's "
                            "answer has no token list.",
    "prompt_no_usage": "Could not build a prompt of {target} tokens: the server's answer has no "
                       "usage.prompt_tokens to calibrate with.",
    "prompt_ask_failed": "Could not build a prompt of {target} tokens: {what} at {url} failed "
                         "({detail}).",
    "prompt_ask_http": "Could not build a prompt of {target} tokens: {what} at {url} answered "
                       "HTTP {status}: {body}",
    "prompt_ask_too_deep": "Could not build a prompt of {target} tokens: {what} at {url} "
                           "answered JSON nested deeper than {limit} levels.",
    "prompt_ask_not_json": "Could not build a prompt of {target} tokens: {what} at {url} did "
                           "not answer JSON.",
    "prompt_ask_shape": "Could not build a prompt of {target} tokens: {what} at {url} answered "
                        "an unexpected shape.",
    "prompt_impossible_count": "Could not build a prompt of {target} tokens: {what} answered an "
                               "impossible token count ({count}).",
    "asker_tokenizer": "the tokenizer", "asker_calibration": "a calibration request",
    "exceeds_context": "{input} + {output} output tokens exceed the server's context of {limit} "
                       "tokens",
    # An export that cannot be written (`exchange.export`, `exchange.atomic`).
    "export_format": "{item} is not one of {choices}",
    "export_kind": "run {run} is a {kind} run; only throughput and SQL runs can be exported",
    "export_cannot_read": "cannot read run {run} from {path}: {detail}",
    "out_is_file": "{path} is a file, not a folder",
    "out_cannot_create": "cannot create {path}: {error}",
    "out_not_writable": "{path} is not writable",
    # Already in the reader's words (an endpoint's error put in words by the CLI): the field
    # is still named in their language.
    "said": "{text}",
}


@dataclass(frozen=True)
class Phrase:
    """A part of a message said by its own code and params (where in a file, why a value was
    refused), given as a param of the message: its English is INPUT_MESSAGES' as the message's
    is, and `report.input_words` words it in the reader's language with the rest."""

    code: str
    params: dict = field(default_factory=dict)

    def __str__(self) -> str:
        return INPUT_MESSAGES[self.code].format(**self.params)

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class InputError(ValueError):
    """User input that cannot be used; `field` names where it came from.

    Raised with a `code` (one of INPUT_MESSAGES) and its `params`, the message is the code's
    English; the CLI, the window and the PDF put the code in the reader's language
    (`report.input_words`), as a `Finding` is. Raised with a `message` and no code, that
    English sentence is all there is."""

    def __init__(self, field: str, message: str = "", *, code: str = "", **params) -> None:
        if code and not message:
            message = INPUT_MESSAGES[code].format(**params)
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message
        self.code = code
        self.params = params


class CodedError(Exception):
    """An error of the core (not about one input field) said by one of INPUT_MESSAGES' codes
    and its `params`, as an InputError is: its message is the code's English, and the CLI and
    the window put the code in the reader's language (`report.errors.error_text`). Raised with
    a `message` and no code, that English sentence is all there is."""

    def __init__(self, message: str = "", *, code: str = "", **params) -> None:
        if code and not message:
            message = INPUT_MESSAGES[code].format(**params)
        super().__init__(message)
        self.code, self.params = code, params


_INT_ITEM = re.compile(r"^(\d+)\s*([kK]?)$")
_MAX_DIGITS = 18
_SHOWN_CHARS = 40


def _shown(item: str) -> str:
    """An item as quoted in a message: a pasted screenful is cut, so the message stays a line."""
    if len(item) <= _SHOWN_CHARS:
        return repr(item)
    return f"{item[:_SHOWN_CHARS]!r}... ({len(item):,} characters)"


def parse_int_list(
    text: str, field: str, *, min_value: int = 1, max_value: int | None = None
) -> list[int]:
    """Parse `"2048, 4k,32k"` into `[2048, 4096, 32768]`.

    Items are separated by commas or spaces; a `k` suffix multiplies by 1024 (token counts are
    talked about in powers of two: a "4k prompt" is 4096 tokens). Duplicates are dropped, the
    order given is kept.
    """
    items = [item for item in re.split(r"[,\s]+", text.strip()) if item]
    if not items:
        raise InputError(field, code="empty_int_list")
    values: list[int] = []
    for item in items:
        match = _INT_ITEM.match(item)
        if not match:
            raise InputError(field, code="not_whole", item=_shown(item))
        if len(match.group(1)) > _MAX_DIGITS:  # int() refuses over 4,300 digits; none is sane
            raise InputError(field, code="too_large",
                             item=_shown(item))
        value = int(match.group(1)) * (1024 if match.group(2) else 1)
        if value < min_value:
            raise InputError(field, code="below_min", item=_shown(item), low=min_value)
        if max_value is not None and value > max_value:
            raise InputError(field, code="above_max", item=_shown(item), high=max_value)
        if value not in values:
            values.append(value)
    return values


def parse_float_list(text: str, field: str, *, min_value: float = 0.0) -> list[float]:
    """Parse `"0.5, 1,2"` into `[0.5, 1.0, 2.0]`: positive finite numbers, order kept."""
    items = [item for item in re.split(r"[,\s]+", str(text).strip()) if item]
    if not items:
        raise InputError(field, code="empty_float_list")
    values: list[float] = []
    for item in items:
        try:
            value = float(item)
        except ValueError:
            raise InputError(field, code="not_number",
                             item=_shown(item)) from None
        if not (value > min_value) or value != value or value == float("inf"):
            raise InputError(field, code="not_above", item=_shown(item), low=min_value)
        if value not in values:
            values.append(value)
    return values


def check_range(field: str, value, low: float, high: float, *, unit: str = "") -> float:
    """``value`` when it is a finite number with ``low < value <= high``; InputError naming
    ``field`` otherwise (``unit`` "s": a number of seconds). For limits a user gives: NaN
    would switch a deadline off (every comparison with it is false), inf means never, 0 or a
    negative means always."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not (low < value <= high):
        shown = f"{value:g}" if isinstance(value, float) else str(value)[:40]
        raise InputError(field, code="out_of_range_s" if unit == "s" else "out_of_range",
                         item=shown,
                         low=low, high=high)
    return value


_INT_TEXT = re.compile(r"[+-]?\d{1,18}")


def number_or_text(text: str) -> int | float | str:
    """Text read from a file or a server as the number it spells (an integer of at most 18
    digits, or a finite float), else the text itself."""
    if _INT_TEXT.fullmatch(text):
        return int(text)
    try:
        number = float(text)
    except ValueError:
        return text
    return number if math.isfinite(number) else text


def dict_at(data: dict, key: str) -> dict:
    """`data[key]` when it is an object, else {}: a file or a server's JSON holds whatever it
    holds, and a reader that walks it goes on from an empty object."""
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def list_at(data: dict, key: str) -> list:
    """`data[key]` when it is a list, else [] (as `dict_at`)."""
    value = data.get(key)
    return value if isinstance(value, list) else []
