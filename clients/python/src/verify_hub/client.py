"""The verify-hub engine API client: ``Client(api_key, base_url).verify(email)``.

``verify`` sends ``GET {base_url}/api/v1/verify?email=<address>`` with the key in the ``X-API-Key`` header
and returns ``VerifyResponse(data, error)``: the published result exactly as the engine sent it, or a
``VerifyHubError``. It does not raise for an engine answer or a network failure.
"""

from __future__ import annotations

import json
import math
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from http.client import HTTPException
from typing import Any, NamedTuple, Optional, Tuple

from .types import VerificationResult

#: A 429 is a quota, not a rate limit, when its reset is further away than any rate window (one hour).
QUOTA_RESET_THRESHOLD_MS = 60 * 60 * 1000
_FALLBACK_WAIT_MS = 1000


@dataclass(frozen=True)
class VerifyHubError:
    """Why a verification gave no result; the same shape as the JavaScript client's. Never holds the key.

    ``code`` is one of ``UNAUTHORIZED`` (401), ``BAD_REQUEST`` or the engine's own code (400, e.g.
    ``INVALID_REQUEST``), ``RATE_LIMITED`` and ``QUOTA_EXCEEDED`` (429), ``SERVER_ERROR`` (5xx),
    ``HTTP_ERROR`` or the body's code (another status), ``BAD_RESPONSE`` (a 200 that is not a JSON object),
    ``NETWORK_ERROR`` and ``TIMEOUT`` (no HTTP answer; ``status`` is then ``None``).
    """

    status: Optional[int]
    code: str
    message: str
    #: On a 429: milliseconds until the limit or quota resets (from ``X-RateLimit-Reset``).
    retry_after_ms: Optional[int] = None


class VerifyResponse(NamedTuple):
    """``data`` (the published result) or ``error``; unpacks as ``data, error = client.verify(...)``."""

    data: Optional[VerificationResult]
    error: Optional[VerifyHubError]


def parse_rate_limit_reset(value: Optional[str], now_ms: Optional[int] = None) -> Optional[int]:
    """``X-RateLimit-Reset`` in any of its three forms, told apart by magnitude, as epoch milliseconds.

    >= 1e12: epoch milliseconds; >= 1e9: epoch seconds; otherwise seconds from now. ``None`` when the
    header is missing or not a number.
    """
    if value is None or value.strip() == "":
        return None
    try:
        n = float(value.strip())
    except ValueError:
        return None
    if not math.isfinite(n) or n < 0:
        return None
    if n >= 1e12:
        return int(round(n))
    if n >= 1e9:
        return int(round(n * 1000))
    now = _now_ms() if now_ms is None else now_ms
    return now + int(round(n * 1000))


def _now_ms() -> int:
    return int(time.time() * 1000)


def _reset_at(headers: Message, now: int) -> int:
    reset = parse_rate_limit_reset(headers.get("X-RateLimit-Reset"), now)
    if reset is not None:
        return reset
    try:
        retry_after = float(headers.get("Retry-After") or "nan")
    except ValueError:
        retry_after = math.nan
    if math.isfinite(retry_after) and retry_after >= 0:
        return now + int(retry_after * 1000)
    return now + _FALLBACK_WAIT_MS


def _is_quota(code: Optional[str], reset: int, now: int) -> bool:
    upper = (code or "").upper()
    if "QUOTA" in upper or "CREDIT" in upper:
        return True
    if "RATE" in upper:
        return False
    return reset - now > QUOTA_RESET_THRESHOLD_MS


def _is_timeout(error: BaseException) -> bool:
    reason = getattr(error, "reason", None)
    return isinstance(error, (socket.timeout, TimeoutError)) or isinstance(reason, (socket.timeout, TimeoutError))


class Client:
    """A client of one engine with one key.

    :param api_key: the engine API key; sent only in the ``X-API-Key`` header.
    :param base_url: the engine's address, e.g. ``http://127.0.0.1:8081`` (``/api/v1/verify`` is appended).
    :param timeout_ms: limit for connecting and for each read of an answer (default 10000).
    :param max_retries: retries of a rate-limited (429) request, each after waiting for ``X-RateLimit-Reset`` (default 2).
    :param max_wait_ms: a rate-limit reset further away than this is returned as an error (default 60000).
    """

    def __init__(self, api_key: str, base_url: str, *, timeout_ms: float = 10_000, max_retries: int = 2, max_wait_ms: float = 60_000) -> None:
        if not isinstance(api_key, str) or api_key.strip() == "":
            raise ValueError("api_key: an engine API key is required")
        if not isinstance(base_url, str) or not base_url.lower().startswith(("http://", "https://")):
            raise ValueError("base_url: an http(s) address is required, e.g. http://127.0.0.1:8081")
        for name, value in (("timeout_ms", timeout_ms), ("max_retries", max_retries), ("max_wait_ms", max_wait_ms)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise ValueError(f"{name}: must be a number >= 0")
        self.__api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.timeout_ms = timeout_ms
        self.max_retries = int(max_retries)
        self.max_wait_ms = max_wait_ms
        self._opener = urllib.request.build_opener()

    def __repr__(self) -> str:
        return f"Client(base_url={self.base_url!r}, timeout_ms={self.timeout_ms!r}, max_retries={self.max_retries!r})"

    def verify(self, email: str) -> VerifyResponse:
        """Verifies one address: ``VerifyResponse(data, None)`` or ``VerifyResponse(None, error)``."""
        url = f"{self.base_url}/api/v1/verify?" + urllib.parse.urlencode({"email": email}, quote_via=urllib.parse.quote)
        attempt = 0
        while True:
            response, wait_ms = self._attempt(url)
            if wait_ms is None or attempt >= self.max_retries or wait_ms > self.max_wait_ms:
                return response
            time.sleep(wait_ms / 1000)
            attempt += 1

    def _send(self, request: urllib.request.Request) -> Tuple[int, Message, bytes]:
        """One HTTP exchange: (status, headers, body). Raises for network failures and timeouts."""
        try:
            with self._opener.open(request, timeout=self.timeout_ms / 1000) as res:
                return res.status, res.headers, res.read()
        except urllib.error.HTTPError as answer:
            with answer:
                return answer.code, answer.headers, answer.read()

    def _attempt(self, url: str) -> Tuple[VerifyResponse, Optional[int]]:
        """The answer of one request, and how long to wait before retrying it (``None``: do not retry)."""
        request = urllib.request.Request(url, method="GET", headers={"X-API-Key": self.__api_key, "Accept": "application/json"})
        try:
            status, headers, raw = self._send(request)
        except (urllib.error.URLError, HTTPException, OSError) as failure:
            if _is_timeout(failure):
                return self._fail(None, "TIMEOUT", f"no answer from the engine within {self.timeout_ms:g} ms"), None
            reason: Any = getattr(failure, "reason", failure)
            return self._fail(None, "NETWORK_ERROR", f"could not reach the engine at {self.base_url}: {reason}"), None

        try:
            body: Any = json.loads(raw.decode("utf-8")) if raw else None
        except (ValueError, UnicodeDecodeError):
            body = None
        if status == 200:
            if isinstance(body, dict):
                return VerifyResponse(body, None), None  # type: ignore[arg-type]
            return self._fail(200, "BAD_RESPONSE", "the engine answered 200 without a JSON object"), None

        body_code = body.get("code") if isinstance(body, dict) and isinstance(body.get("code"), str) else None
        message = body["error"] if isinstance(body, dict) and isinstance(body.get("error"), str) else f"the engine answered HTTP {status}"
        if status == 429:
            now = _now_ms()
            reset = _reset_at(headers, now)
            retry_after_ms = max(0, reset - now)
            if _is_quota(body_code, reset, now):
                return self._fail(429, "QUOTA_EXCEEDED", message, retry_after_ms), None
            return self._fail(429, "RATE_LIMITED", message, retry_after_ms), retry_after_ms
        if status == 401:
            return self._fail(401, "UNAUTHORIZED", message), None
        if status == 400:
            return self._fail(400, body_code or "BAD_REQUEST", message), None
        if status >= 500:
            return self._fail(status, "SERVER_ERROR", message), None
        return self._fail(status, body_code or "HTTP_ERROR", message), None

    def _fail(self, status: Optional[int], code: str, message: str, retry_after_ms: Optional[int] = None) -> VerifyResponse:
        # The key is never part of an error, even if an engine or a proxy echoed it.
        safe = message.replace(self.__api_key, "[redacted]")
        return VerifyResponse(None, VerifyHubError(status, code, safe, retry_after_ms))


__all__ = ["Client", "VerifyHubError", "VerifyResponse", "parse_rate_limit_reset", "QUOTA_RESET_THRESHOLD_MS"]
