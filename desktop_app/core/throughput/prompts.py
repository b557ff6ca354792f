"""Prompts of an exact token length, unique from their first tokens.

A sweep sends many requests of a few prompt lengths. `PromptFactory` builds one filler body per
target length, token-exact as the *server* counts prompt tokens (chat template and BOS included),
and makes each request unique with a short salt at the very start, so that prefix caching (which
matches from the first token) cannot serve one request from another's cache.

How lengths are measured, by `EndpointInfo.tokenizer`:

* "vllm": `POST /tokenize` with `prompt` or `messages` (the latter applies the chat template), so
  the count is exactly what `usage.prompt_tokens` will say.
* "llamacpp" (`POST /tokenize {"content"}`) and "llamacpp-python" (`POST /extras/tokenize
  {"input"}`): the content is counted there; what the server adds (chat template, BOS) is measured
  once per factory with one 1-token completion (`usage.prompt_tokens` minus the content count).
* None: calibrated with 1-token non-streaming completions. Cost: 3 short requests once per
  factory (about 150-700 prompt tokens each; 2 when `unique=False`), then usually 1 request per
  distinct length (a full-length prefill: about 50 s for 32k tokens at 650 tok/s), 2-3 when the
  first guess misses by more than 1 %, at most 8. Results are cached per length.

Salts are verified, not assumed: with a tokenizer, salts covering every salt word in every
position are counted once per factory and two random ones again for every length; if any count
differs, every prompt is counted (and trimmed) on its own from then on. Calibrated prompts cannot
be verified per request; the salt's stability is checked on two probes and logged.
"""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import math
import random
import secrets
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Literal

import httpx

from desktop_app.core.endpoint import limits
from desktop_app.core.endpoint.limits import JSONTooDeep, clean_text, loads_limited
from desktop_app.core.endpoint.types import EndpointConfig, EndpointInfo
from desktop_app.core.parsing import CodedError, Phrase
from desktop_app.core.redact import redact_text

log = logging.getLogger(__name__)

Method = Literal["tokenizer", "calibrated"]
_PAD_PIECES = (" a", " I", " so", ",", ".")  # appended to close the last few tokens of a gap
_TOKENIZE_BUDGET = 40  # /tokenize calls allowed to fit one length (cheap: milliseconds each)
_CALIBRATE_BUDGET = 8  # 1-token completions allowed to fit one length (each a full prefill)
# A filler word costs at least this share of a token on any real tokenizer: a server whose
# counts say otherwise (0, or negative) cannot make the fitter build prompts beyond it.
_MAX_WORDS_PER_TOKEN = 20


# Filler: lowercase common English words. Every block of len(_WORDS) words is a fresh random
# permutation of the whole list, so any two blocks cost nearly the same number of tokens (the
# calibrated path extrapolates from that) while no long word sequence ever repeats.
_WORDS = tuple("""
    the of and to in is it for on with as was at by from that this are be or have had not but
    all can one two new more time year day way work part place case week group number point
    world house water light paper table chair river stone cloud field road city garden market
    window door music story letter report answer result value order price cost month season
    model batch cache queue token stream layer kernel vector signal sample region sales total
    small large early late quick slow green blue bright quiet simple common open clear warm
    make take give find keep show move turn read write build start carry check count hold
    north south east west under over after before along around""".split())
_BLOCK = len(_WORDS)
# Sentence lengths within a block (they sum past _BLOCK; a block's last word always ends one).
_SENTENCES = (9, 12, 7, 14, 10, 8, 13, 11, 6, 15, 9, 12, 10, 8, 14, 7, 11, 13, 9, 12)
_ENDS = frozenset(e - 1 for e in itertools.accumulate(_SENTENCES) if e < _BLOCK)
_ENDS = _ENDS | {_BLOCK - 1}

# Salts: common short words (one token each in most tokenizers; checked against the server,
# not assumed) in 7 positions, 2 fixed per run and 5 spelling the request index in base 32
# (least significant first, so consecutive indices differ in the first word).
_SALT_WORDS = tuple("""
    apple bread horse train glass plant sugar money phone heart beach night dream forest
    silver winter summer orange planet coffee doctor school mother friend animal island
    pencil butter rabbit tiger lemon piano""".split())
_DIGITS = 5
SALT_SPACE = len(_SALT_WORDS) ** _DIGITS  # distinct salts per run (33,554,432)
_CAL_SALTS = (SALT_SPACE - 1, SALT_SPACE - 2)  # reserved: never a request index


class _SaltMaker:
    """Per-run salts: the words depend on the run's seed and the request index."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"salt:{seed}")
        v = len(_SALT_WORDS)
        self._run = (rng.randrange(v), rng.randrange(v))
        self._offsets = tuple(rng.randrange(v) for _ in range(_DIGITS))

    def salt(self, index: int) -> str:
        """The salt of request `index` (0 <= index < SALT_SPACE)."""
        if not 0 <= index < SALT_SPACE:
            raise PromptError("prompt_salt_range", index=index, high=SALT_SPACE - 1)
        v = len(_SALT_WORDS)
        d = [(index // v**j + self._offsets[j]) % v for j in range(_DIGITS)]
        return _salt_text((d[0], self._run[0], d[1], self._run[1], d[2], d[3], d[4]))

    @staticmethod
    def coverage() -> list[str]:
        """Salts that put every salt word in every position once (for the stability check)."""
        v = len(_SALT_WORDS)
        return [_salt_text(tuple((k + j) % v for j in range(_DIGITS + 2))) for k in range(v)]


def _salt_text(word_ids: tuple[int, ...]) -> str:
    return " ".join(_SALT_WORDS[i] for i in word_ids) + ":"


def _join(prefix: str, body: str) -> str:
    """A salt followed by the body (whose words each start with a space); no salt: no space."""
    return prefix + body if prefix else body.lstrip(" ")


class _Filler:
    """A deterministic stream of filler words for one key; `text(n)` is its first n words."""

    def __init__(self, key: str) -> None:
        self._rng = random.Random(key)
        self._parts: list[str] = []
        self._ends: list[int] = [0]  # character offset after each word
        self._joined = ""

    def text(self, n: int) -> str:
        """The first `n` words, each with its leading space (sentences end with a period)."""
        while len(self._parts) < n:
            block = list(_WORDS)
            self._rng.shuffle(block)
            for pos, word in enumerate(block):
                part = f" {word}." if pos in _ENDS else f" {word}"
                self._parts.append(part)
                self._ends.append(self._ends[-1] + len(part))
            self._joined = ""
        if not self._joined:
            self._joined = "".join(self._parts)
        return self._joined[: self._ends[n]] if n else ""


class PromptError(CodedError):
    """A prompt that cannot be built, said by a code (`core.parsing.INPUT_MESSAGES`) naming
    the length. What the server said goes in as params, redacted and made printable first:
    a URL or an answer can carry a password."""

    def __init__(self, code: str, **params) -> None:
        params = {k: redact_text(clean_text(v)) if isinstance(v, str) else v
                  for k, v in params.items()}
        super().__init__(code=code, **params)


@dataclass(frozen=True)
class Prompt:
    """One request's prompt. Token counts are the server's prompt tokens (template included).

    Exactly one of `text` (for /v1/completions) and `messages` (for chat) is set.
    `expected_tokens` is what the server's tokenizer counted, or the calibrated measurement of
    the same body; `method` says which.
    """

    target_tokens: int
    expected_tokens: int
    method: Method
    text: str | None = None
    messages: tuple[dict[str, str], ...] | None = None

    @property
    def content(self) -> str:
        """The prompt text itself (the single user message for chat)."""
        if self.messages is not None:
            return self.messages[-1]["content"]
        return self.text or ""

    def request_fields(self) -> dict:
        """The body fields to merge into a request: `{"prompt": ...}` or `{"messages": [...]}`."""
        if self.messages is not None:
            return {"messages": [dict(m) for m in self.messages]}
        return {"prompt": self.text}


def check_prompt_tokens(target: int, reported: int | None) -> bool:
    """True when the server's `reported` prompt tokens are within 2 % of `target` (None: True)."""
    return reported is None or abs(reported - target) <= 0.02 * target


def tolerance(target: int) -> int:
    """Tokens a prompt may miss its target by (1 %, rounded down: exact below 100 tokens)."""
    return int(target * 0.01)


@dataclass
class _Body:
    """The filler fitted to one length: `text` after a salt gives `tokens` prompt tokens."""

    text: str
    tokens: int
    words: int


class PromptFactory:
    """Builds token-exact prompts for one run (create one per run; safe to share between tasks).

    `client` is the caller's `httpx.AsyncClient`; nothing here closes it. `unique=False` gives
    identical prompts per length (to measure prefix-cache hits). `seed` fixes the salts and the
    filler (None: a fresh random seed, kept in `.seed` for the record). Cancelling `prompt()`
    leaves the cache consistent: a half-built length is simply built again next time.
    """

    def __init__(self, client: httpx.AsyncClient, config: EndpointConfig, info: EndpointInfo,
                 unique: bool = True, seed: int | None = None) -> None:
        self._client = client
        self._config = config
        self._info = info
        self.unique = unique
        self.seed = secrets.randbits(48) if seed is None else seed
        self.method: Method = "calibrated" if info.tokenizer is None else "tokenizer"
        self.max_model_len: int | None = None  # from vLLM's /tokenize, when it says
        self.salt_stable: bool | None = None  # None until checked
        self.calibration_requests = 0  # 1-token completions sent so far
        self.tokenize_calls = 0
        self._salts = _SaltMaker(self.seed)
        self._overhead = 0  # tokens the server adds to a counted content (llama.cpp kinds)
        self._base = 0.0  # prompt tokens of a salt with an empty body
        self._per_word = 1.3  # tokens per filler word, refined as lengths are fitted
        self._ready = False
        self._setup_lock = asyncio.Lock()
        self._locks: dict[int, asyncio.Lock] = {}
        self._bodies: dict[int, _Body] = {}
        self._streams: dict[int, _Filler] = {}  # filler per length, kept for per-prompt refits
        self._model = config.model or (info.models[0] if info.models else "")
        self._headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._timeout = httpx.Timeout(config.first_byte_timeout_s, connect=config.connect_timeout_s)

    async def prepare(self, targets: Iterable[int]) -> None:
        """Fit every length in `targets` now (before timing starts); raises PromptError."""
        for target in sorted(set(targets)):
            await self._body(target)

    async def prompt(self, target_tokens: int, index: int) -> Prompt:
        """The prompt for request `index` (0, 1, ...) of `target_tokens` prompt tokens.

        Raises PromptError when the length cannot be built (too short for the salt and
        template, beyond the server's context, or the tokenizer endpoint failing).
        """
        body = await self._body(target_tokens)
        prefix = self._salts.salt(index) if self.unique else ""
        content, tokens = _join(prefix, body.text), body.tokens
        if self.unique and self.salt_stable is False and self.method == "tokenizer":
            # This server's salts do not all count the same: count this one, refit if needed.
            tokens = await self._count(content, target_tokens)
            if tokens != target_tokens:
                content, tokens, _ = await self._fit(target_tokens, prefix, body.words)
        return self._make(target_tokens, content, tokens)

    def given(self, text: str | None, messages: tuple[dict[str, str], ...] | None, index: int,
              expected: int) -> Prompt:
        """A workload's own prompt for request `index`, salted as this run's built prompts
        are: with `unique`, its salt goes first (in the first message of a chat), so a file
        replayed at a second load never meets the prefix cache the first one filled.
        `expected` is its length as far as is known (a text's, estimated)."""
        salt = self._salts.salt(index) + "\n" if self.unique else ""
        if messages is not None:
            first, *rest = messages
            turns = ({"role": first["role"], "content": salt + first["content"]}, *rest)
            if self._config.api == "chat":
                return Prompt(expected, expected, self.method, messages=tuple(turns))
            text = "\n".join(m["content"] for m in turns)  # a completions endpoint: the text
            return Prompt(expected, expected, self.method, text=text)
        return self._make(expected, salt + (text or ""), expected)

    async def count_text(self, text: str) -> int | None:
        """Tokens the server's tokenizer makes of `text` alone (no chat template, no special
        tokens where the endpoint lets that be said); None without a tokenizer endpoint.
        Raises PromptError when it fails."""
        if self._info.tokenizer is None:
            return None
        return await self._tokenize(text, 0, bare=True)

    async def blocks(self, lengths: list[tuple[int, int]]) -> Prompt:
        """A prompt made of blocks, each (index, tokens) a salted body of that many tokens:
        two prompts whose blocks start alike share that prefix (a Mooncake trace's hash ids).
        Each block is token-exact on its own; joined, the server may count a token or two
        more or fewer per block, which the request's own count shows."""
        parts = [(await self.prompt(tokens, index)).content for index, tokens in lengths]
        total = sum(tokens for _, tokens in lengths)
        return self._make(total, "\n".join(parts), total)

    def _make(self, target: int, content: str, tokens: int) -> Prompt:
        if self._config.api == "chat":
            return Prompt(target, tokens, self.method,
                          messages=({"role": "user", "content": content},))
        return Prompt(target, tokens, self.method, text=content)

    async def _body(self, target: int) -> _Body:
        if target in self._bodies:
            return self._bodies[target]
        if target < 1:
            raise PromptError("prompt_at_least_1", target=target)
        await self._setup(target)
        lock = self._locks.setdefault(target, asyncio.Lock())
        async with lock:  # concurrent callers of one length build it once
            if target not in self._bodies:
                self._bodies[target] = await self._build(target)
        return self._bodies[target]

    async def _build(self, target: int) -> _Body:
        self._check_limits(target)
        prefix = self._salts.salt(_CAL_SALTS[0]) if self.unique else ""
        content, tokens, words = await self._fit(target, prefix)
        if words:
            self._per_word = max(0.1, (tokens - self._base) / words)
        body = _Body(content[len(prefix):], tokens, words)
        if self.unique and self.method == "tokenizer" and self.salt_stable:
            rng = random.Random(f"{self.seed}:{target}")
            for index in (rng.randrange(10**5), rng.randrange(10**5, SALT_SPACE - 2)):
                check = _join(self._salts.salt(index), body.text)
                if await self._count(check, target) != tokens:
                    log.info("salt counts vary at %d tokens: counting every prompt", target)
                    self.salt_stable = False
        return body

    def _check_limits(self, target: int) -> None:
        if self.max_model_len is not None and target + 1 > self.max_model_len:
            raise PromptError("prompt_no_fit", target=target, limit=self.max_model_len)
        if target < math.ceil(self._base - tolerance(target)):
            chat = self._config.api == "chat"
            what = (("what_salt_chat" if chat else "what_salt") if self.unique
                    else ("what_server_adds_chat" if chat else "what_server_adds"))
            raise PromptError("prompt_too_short", target=target, what=Phrase(what),
                              base=math.ceil(self._base))

    async def _fit(self, target: int, prefix: str, hint_words: int | None = None,
                   ) -> tuple[str, int, int]:
        """Filler after `prefix` giving `target` tokens: (content, tokens, filler words).

        Secant steps on the word count bracket the target (tokens never fall as words are
        added), then single-token pieces close the last gap. With a tokenizer it aims for
        exactly `target`; calibrated, for within 1 %.
        """
        calibrated = self.method == "calibrated"
        aim = tolerance(target) if calibrated else 0
        budget = _CALIBRATE_BUDGET if calibrated else _TOKENIZE_BUDGET
        stream = self._streams.setdefault(target, _Filler(f"{self.seed}:{target}"))
        n = hint_words if hint_words is not None else round((target - self._base) / self._per_word)
        n = max(0, n)
        lo: tuple[int, int] | None = None  # (words, tokens) just under the target
        hi: tuple[int, int] | None = None  # just over it
        while budget > 0:
            budget -= 1
            tokens = await self._count(_join(prefix, stream.text(n)), target)
            if abs(tokens - target) <= aim:
                return _join(prefix, stream.text(n)), tokens, n
            if tokens < target:
                lo = (n, tokens) if lo is None or n > lo[0] else lo
            else:
                hi = (n, tokens) if hi is None or n < hi[0] else hi
            if hi is not None and hi[0] == 0:
                break  # even an empty body is too long: reported below
            if lo is not None and hi is not None and hi[0] - lo[0] <= 1:
                break
            slope = (hi[1] - lo[1]) / (hi[0] - lo[0]) if lo and hi else self._per_word
            step = (target - tokens) / max(slope, 0.05)
            n += math.ceil(step) if step > 0 else math.floor(step)
            n = min(max(n, lo[0] + 1 if lo else 0), hi[0] - 1 if hi else n)
            n = min(n, _MAX_WORDS_PER_TOKEN * target + 64)  # bounded memory, whatever counts say
        if lo is None:
            raise PromptError("prompt_shortest", target=target, shortest=hi[1] if hi else "?")
        content, tokens = _join(prefix, stream.text(lo[0])), lo[1]
        pieces = list(_PAD_PIECES)
        while tokens < target - aim and budget > 0 and pieces:
            budget -= 1
            candidate = content + pieces[0]
            counted = await self._count(candidate, target)
            if tokens < counted <= target:
                content, tokens = candidate, counted
            else:
                pieces.pop(0)  # this piece merges or splits here: try another
        if abs(tokens - target) > tolerance(target):
            raise PromptError("prompt_not_within", target=target, tokens=tokens)
        return content, tokens, lo[0]

    async def _setup(self, target: int) -> None:
        """Once per factory: what the server adds, the salt's cost and stability, words' cost."""
        if self._ready:
            return
        async with self._setup_lock:
            if self._ready:
                return
            self._overhead = 0  # a cancelled earlier attempt may have set it
            probe = _Filler(f"{self.seed}:probe")
            prefix = self._salts.salt(_CAL_SALTS[0]) if self.unique else ""
            one, four = _BLOCK, 4 * _BLOCK
            if self.method == "calibrated":
                a = await self._count(_join(prefix, probe.text(one)), target)
                b = await self._count(_join(prefix, probe.text(four)), target)
                self._per_word = max(0.1, (b - a) / (four - one))
                self._base = a - one * self._per_word
                if self.unique:
                    other = self._salts.salt(_CAL_SALTS[1])
                    a2 = await self._count(_join(other, probe.text(one)), target)
                    self.salt_stable = a2 == a
                    if a2 != a:
                        log.warning("salts count %d and %d tokens on this server: calibrated "
                                    "prompts may miss by that much", a, a2)
            else:
                if self._info.tokenizer in ("llamacpp", "llamacpp-python"):
                    sample = _join(prefix, probe.text(one))
                    content = await self._count(sample, target)  # overhead still 0 here
                    self._overhead = await self._usage(sample, target) - content
                self._base = await self._count(_join(prefix, ""), target)
                if self.unique:
                    texts = [_join(s, probe.text(one)) for s in self._salts.coverage()]
                    counts = await _gather_limited(
                        [functools.partial(self._count, t, target) for t in texts], 8)
                    self.salt_stable = len(set(counts)) == 1
                    if not self.salt_stable:
                        log.info("salt counts vary (%s): counting every prompt",
                                 sorted(set(counts)))
                    reference = counts[0]
                else:
                    reference = await self._count(probe.text(one), target)
                self._per_word = max(0.1, (reference - self._base) / one)
            self._ready = True

    async def _count(self, content: str, target: int) -> int:
        """Prompt tokens the server will count for `content` sent as this run's api."""
        if self._info.tokenizer is None:
            return await self._usage(content, target)
        return await self._tokenize(content, target)

    async def _tokenize(self, content: str, target: int, bare: bool = False) -> int:
        """The tokenizer endpoint's count of `content`: as this run's api sends it (a chat's
        template, llama.cpp's added tokens), or with `bare` the text alone."""
        kind = self._info.tokenizer
        self.tokenize_calls += 1
        root = self._config.root_url
        if kind == "vllm":
            body: dict = {"model": self._model} if self._model else {}
            if bare:
                body.update(prompt=content, add_special_tokens=False)
            elif self._config.api == "chat":
                body["messages"] = [{"role": "user", "content": content}]
            else:
                body["prompt"] = content
            data = await self._post(f"{root}/tokenize", body, "asker_tokenizer", target)
            if isinstance(data.get("max_model_len"), int):
                self.max_model_len = data["max_model_len"]
            count = data.get("count")
            if not isinstance(count, int):
                tokens = data.get("tokens")
                count = len(tokens) if isinstance(tokens, list) else 0
            return _plausible_count(count, target, "asker_tokenizer")
        if kind == "llamacpp":
            data = await self._post(f"{root}/tokenize", {"content": content}, "asker_tokenizer",
                                    target)
        else:
            data = await self._post(f"{root}/extras/tokenize", {"input": content},
                                    "asker_tokenizer", target)
        tokens = data.get("tokens")
        if not isinstance(tokens, list):
            raise PromptError("prompt_no_token_list", target=target)
        return len(tokens) + (0 if bare else self._overhead)

    async def _usage(self, content: str, target: int) -> int:
        """`usage.prompt_tokens` of a 1-token, non-streaming completion of `content`."""
        self.calibration_requests += 1
        body: dict = {"model": self._model, "max_tokens": 1, "stream": False, "temperature": 0}
        if self._config.api == "chat":
            url = f"{self._config.v1_url}/chat/completions"
            body["messages"] = [{"role": "user", "content": content}]
        else:
            url = f"{self._config.v1_url}/completions"
            body["prompt"] = content
        data = await self._post(url, body, "asker_calibration", target)
        usage = data.get("usage") or {}
        if not isinstance(usage.get("prompt_tokens"), int):
            raise PromptError("prompt_no_usage", target=target)
        return _plausible_count(usage["prompt_tokens"], target, "asker_calibration")

    async def _post(self, url: str, body: dict, what: str, target: int) -> dict:
        try:
            try:
                response = await self._client.post(url, json=body, headers=self._headers,
                                                   timeout=self._timeout)
            except (httpx.RemoteProtocolError, httpx.ConnectError):
                # A kept-alive connection the server closed under us: these calls change
                # nothing on the server, so one retry on a fresh connection is safe.
                response = await self._client.post(url, json=body, headers=self._headers,
                                                   timeout=self._timeout)
        except httpx.HTTPError as exc:
            raise PromptError("prompt_ask_failed", target=target, what=Phrase(what), url=url,
                              detail=f"{type(exc).__name__}: {exc}") from exc
        if response.status_code != 200:
            raise PromptError("prompt_ask_http", target=target, what=Phrase(what), url=url,
                              status=response.status_code, body=response.text[:200])
        try:
            data = loads_limited(response.content)
        except JSONTooDeep as exc:
            raise PromptError("prompt_ask_too_deep", target=target, what=Phrase(what), url=url,
                              limit=exc.limit) from None
        except ValueError as exc:
            raise PromptError("prompt_ask_not_json", target=target, what=Phrase(what),
                              url=url) from exc
        if not isinstance(data, dict):
            raise PromptError("prompt_ask_shape", target=target, what=Phrase(what), url=url)
        return data


def _plausible_count(count: int, target: int, what: str) -> int:
    """A token count a prompt can rest on; PromptError for a negative or absurd one."""
    if isinstance(count, bool) or not 0 <= count <= limits.MAX_PLAUSIBLE_TOKENS:
        raise PromptError("prompt_impossible_count", target=target, what=Phrase(what),
                          count=f"{count!r:.30}")
    return count


async def _gather_limited(calls: list[Callable[[], Awaitable[int]]], limit: int) -> list[int]:
    """Run `calls` with at most `limit` in flight; results in order."""
    gate = asyncio.Semaphore(limit)

    async def one(call: Callable[[], Awaitable[int]]) -> int:
        async with gate:
            return await call()

    return list(await asyncio.gather(*(one(c) for c in calls)))
