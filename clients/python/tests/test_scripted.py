"""The Python client against a scripted local engine: the 429 forms, timeouts, network errors, the key."""

from __future__ import annotations

import math
import secrets
import socket
import time
import unittest

import support  # noqa: F401 (puts the package's src/ on sys.path)
from support import ScriptedEngine, json_answer

from verify_hub import Client, VerifyHubError, parse_rate_limit_reset


def too_many(reset=None, code=None):
    headers = {} if reset is None else {"X-RateLimit-Reset": reset}
    return json_answer(429, {"error": "Too many requests", **({"code": code} if code else {})}, headers)


class ScriptedTest(unittest.TestCase):
    fake: ScriptedEngine
    key = "vh_" + secrets.token_urlsafe(32)

    @classmethod
    def setUpClass(cls) -> None:
        cls.fake = ScriptedEngine()

    @classmethod
    def tearDownClass(cls) -> None:
        cls.fake.close()

    def setUp(self) -> None:
        self.fake.reset()

    def client(self, **options) -> Client:
        return Client(self.key, self.fake.url, **options)

    def test_parses_the_three_reset_forms(self) -> None:
        now = 1_800_000_000_000
        self.assertEqual(parse_rate_limit_reset("1800000000500", now), 1_800_000_000_500)
        self.assertEqual(parse_rate_limit_reset("1800000001", now), 1_800_000_001_000)
        self.assertEqual(parse_rate_limit_reset("2", now), now + 2000)
        self.assertEqual([parse_rate_limit_reset(v, now) for v in (None, "", "soon", "-1")], [None] * 4)

    def test_waits_for_each_reset_form_then_retries(self) -> None:
        forms = {
            "epoch milliseconds": lambda: str(int(time.time() * 1000) + 300),
            "epoch seconds": lambda: str(math.ceil(time.time())),
            "seconds from now": lambda: "0.3",
        }
        for form, reset in forms.items():
            with self.subTest(form):
                self.fake.reset()
                value = reset()
                expected_at = parse_rate_limit_reset(value)
                self.fake.script = [too_many(value, "RATE_LIMITED")]
                data, error = self.client().verify("john@acme-mail.com")
                self.assertIsNone(error)
                self.assertEqual(data, {"email": "john@acme-mail.com", "score": 95, "risk": "safe", "extra_field": "kept"})
                self.assertEqual(len(self.fake.seen), 2)
                self.assertGreaterEqual(time.time() * 1000, (expected_at or 0) - 20)

    def test_gives_up_after_max_retries(self) -> None:
        soon = lambda: str(int(time.time() * 1000) + 50)  # noqa: E731
        self.fake.script = [too_many(soon()), too_many(soon()), too_many(soon())]
        data, error = self.client(max_retries=1).verify("a@acme-mail.com")
        self.assertIsNone(data)
        assert error is not None
        self.assertEqual((error.status, error.code, error.message), (429, "RATE_LIMITED", "Too many requests"))
        self.assertIsNotNone(error.retry_after_ms)
        self.assertEqual(len(self.fake.seen), 2)

    def test_does_not_wait_for_a_quota_or_a_far_reset(self) -> None:
        cases = [
            (too_many(str(int(time.time() * 1000) + 1000), "QUOTA_EXCEEDED"), "QUOTA_EXCEEDED", 500),
            (too_many(str(math.ceil(time.time()) + 3 * 3600)), "QUOTA_EXCEEDED", 3 * 3600_000 - 2000),
            (too_many("120", "RATE_LIMITED"), "RATE_LIMITED", 119_000),
        ]
        for handler, code, at_least in cases:
            with self.subTest(code=code, at_least=at_least):
                self.fake.reset()
                self.fake.script = [handler]
                _, error = self.client(max_wait_ms=60_000).verify("a@acme-mail.com")
                assert error is not None
                self.assertEqual((error.status, error.code), (429, code))
                self.assertGreater(error.retry_after_ms or 0, at_least)
                self.assertEqual(len(self.fake.seen), 1)

    def test_key_only_in_the_header(self) -> None:
        self.fake.script = [ScriptedEngine.safe, json_answer(401, {"error": f"key {self.key} is revoked", "code": "UNAUTHORIZED"})]
        self.client().verify("x+tag@acme-mail.com")
        _, error = self.client().verify("x@acme-mail.com")
        self.assertEqual([k for _, k in self.fake.seen], [self.key, self.key])
        self.assertEqual(self.fake.seen[0][0], "/api/v1/verify?email=x%2Btag%40acme-mail.com")
        self.assertFalse(any(self.key in path for path, _ in self.fake.seen))
        self.assertEqual(error, VerifyHubError(401, "UNAUTHORIZED", "key [redacted] is revoked"))
        self.assertNotIn(self.key, repr(self.client()))

    def test_timeout_network_server_and_bad_answers_are_errors(self) -> None:
        self.fake.script = [self.fake.hang]
        _, error = self.client(timeout_ms=300).verify("slow@acme-mail.com")
        self.assertEqual(error, VerifyHubError(None, "TIMEOUT", "no answer from the engine within 300 ms"))

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        _, error = Client(self.key, f"http://127.0.0.1:{port}").verify("a@acme-mail.com")
        assert error is not None
        self.assertEqual((error.status, error.code), (None, "NETWORK_ERROR"))
        self.assertIn("refused", error.message.lower())

        def not_json(request) -> None:
            request.send_response(200)
            request.send_header("Content-Length", "4")
            request.end_headers()
            request.wfile.write(b"<h1>")

        self.fake.script = [json_answer(503, "upstream down"), not_json]
        self.assertEqual(self.client().verify("a@acme-mail.com").error, VerifyHubError(503, "SERVER_ERROR", "the engine answered HTTP 503"))
        error = self.client().verify("a@acme-mail.com").error
        assert error is not None
        self.assertEqual((error.status, error.code), (200, "BAD_RESPONSE"))

    def test_refuses_a_missing_key_or_address(self) -> None:
        with self.assertRaisesRegex(ValueError, "^api_key: "):
            Client("", self.fake.url)
        with self.assertRaisesRegex(ValueError, "^base_url: "):
            Client(self.key, "ftp://x")


if __name__ == "__main__":
    unittest.main()
