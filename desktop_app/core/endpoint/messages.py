"""The English of what the endpoint modules report with a code: the errors that stop a call
(`client.EndpointError`) and discovery's notes (`types.DiscoveryNote`). One template serves
the exception's own message and the English reader; `report.endpoint_words` has the Chinese.
Kept apart from the client so the words can be read without loading httpx.
"""

from __future__ import annotations

# The English of each EndpointError code, formatted with the error's `url` and params: the
# exception's own message and what the English CLI and window show (`report.endpoint_words`
# has the Chinese). `detail` is the library's or the system's own words, `start` the start of
# what the server sent, `status` an HTTP status with its phrase.
ENDPOINT_MESSAGES: dict[str, str] = {
    "tls": "cannot set up TLS for {url}: {detail}",
    "tls_env": "cannot set up TLS for {url}: {detail} (check {where})",
    "no_answer_within": "no answer from {url} within {seconds:g} s",
    "connect_within": "could not connect to {url} within {seconds:g} s",
    "no_free_connection": "no free connection within {seconds:g} s",
    "drip": "{detail} (read timeout)",
    "read_timeout": "the server sent nothing for {seconds:g} s (read timeout)",
    "request_failed": "request to {url} failed: {detail}",
    "http_status": "{status} from {url}: {detail}",
    "http_auth": "{status} from {url}: check the API key: {detail}",
    "not_json_object": "{url} did not answer with a JSON object: {start}",
    "discovery_deadline": "{url} answered its discovery probes too slowly: discovery did not "
                          "finish within {seconds:g} s",
    "models_too_deep": "{url} answered a model list nested too deeply ({detail})",
    "no_model_list": "{url} did not answer with a model list (no 'data' array): {start}",
    "connect_timeout": "cannot connect to {url}: no answer within {seconds:g} s (check the "
                       "base URL)",
    "get_drip": "GET {url}: {detail}",
    "models_timeout": "{url} did not answer within {seconds:g} s",
    "cannot_connect": "cannot connect to {url}: {detail} (is the server running, and is the "
                      "base URL right?)",
    "get_failed": "GET {url} failed: {detail}",
    "models_auth": "{status} from {url}: check the API key",
    "no_api": "404 Not Found from {url}: no OpenAI-compatible API there (the base URL should "
              "be the server root or its /v1)",
    "models_status": "{status} from {url}: {detail}",
}


# The English of each discovery note (`DiscoveryNote.code`), formatted with its params;
# `report.endpoint_words` has the Chinese.
NOTE_MESSAGES: dict[str, str] = {
    "engine_unknown": "engine not recognised: tried {paths}, /tokenize and /extras/tokenize",
    "engine_unknown_server": "engine not recognised: tried {paths}, /tokenize and "
                             "/extras/tokenize; the server calls itself {server}",
    "model_not_listed": "model {model} is not in the server's list {models}",
    "no_models": "the server lists no models",
    "no_tokenizer": "no tokenizer endpoint: prompt lengths will be calibrated with 1-token "
                    "completions and usage.prompt_tokens",
    "metrics_unread_seen": "/metrics answers but has none of the series the app reads ({seen})",
    "metrics_unread": "/metrics answers but has none of the series the app reads (no {known})",
    "no_metrics_switch": "no /metrics: start the server as `{switch}` to see its queue",
    "no_metrics": "no /metrics: queueing will be inferred from the client's timeline",
    "health_failing": "/health answers {status}: the server may be loading or overloaded",
    "stream_habits_llamacpp-python": "llama-cpp-python sends no usage in streams (token counts "
                                     "are the client's), ignores ignore_eos, and by default a "
                                     "new request cuts off the running stream",
    "prompt_cache_off": "{engine} caches prompts by default: requests send {fields} when "
                        "prompts are meant to be unique",
}
