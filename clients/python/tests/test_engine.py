"""The Python client against a real `verify-hub engine` (child process, keys in Redis)."""

from __future__ import annotations

import secrets
import threading
import time
import unittest
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import List

import support  # noqa: F401 (puts the package's src/ on sys.path)
from support import EngineProcess

from verify_hub import Client

SET_B_BOOLEANS = ["syntax_valid", "mx_found", "is_disposable", "is_role_account", "is_catch_all", "is_free_provider"]
SET_A_BOOLEANS = ["valid", "deliverable", "smtp_valid", "disposable", "role_based", "free_email"]


class EngineTest(unittest.TestCase):
    engine: EngineProcess
    quota_key: str

    @classmethod
    def setUpClass(cls) -> None:
        cls.engine = EngineProcess()
        try:
            created: List[str] = []
            # The second account (no quota) is created with the CLI while the server starts.
            maker = threading.Thread(target=lambda: created.append(cls.engine.create_key("--name", "python no quota", "--account", f"py-{uuid.uuid4()}", "--quota", "0")))
            maker.start()
            cls.engine.start()
            maker.join(180)
            if not created:
                raise AssertionError("`verify-hub engine keys create` gave no key")
            cls.quota_key = created[0]
        except BaseException:
            cls.engine.stop()
            raise

    @classmethod
    def tearDownClass(cls) -> None:
        cls.engine.stop()

    def client(self, **options) -> Client:
        return Client(self.engine.api_key, self.engine.url, **options)

    def assert_published(self, data: dict) -> None:
        """Every field of ENGINE-API.md section 2.1 field set B with its published type (None: not determined)."""

        def of(value: object, *types: type) -> bool:
            return value is None or (isinstance(value, types) and not (bool not in types and isinstance(value, bool)))

        self.assertIsInstance(data["email"], str)
        self.assertTrue(isinstance(data["score"], int) and 0 <= data["score"] <= 100, data["score"])
        self.assertIn(data["risk"], ["safe", "risky", "invalid", "unknown"])
        for field in SET_B_BOOLEANS + SET_A_BOOLEANS:
            self.assertTrue(of(data[field], bool), field)
        for field in ["smtp_check", "spam_trap_risk"]:
            self.assertTrue(of(data[field], str), field)
        d = data["deliverability"]
        self.assertTrue(of(d["grade"], str) and of(d["score"], int, float))
        for field in ["spf", "dkim", "dmarc"]:
            self.assertTrue(of(d["authentication"][field], str), field)
        b = d["blacklist"]
        self.assertTrue(of(b["listed"], bool) and of(b["listed_count"], int) and of(b["total_checks"], int))
        self.assertIsInstance(data["reason"], str)
        self.assertIsInstance(data["billable"], bool)

    def test_reads_the_published_result(self) -> None:
        data, error = self.client().verify("someone@example.com")
        self.assertIsNone(error)
        assert data is not None
        self.assert_published(data)
        self.assertEqual((data["email"], data["risk"], data["valid"]), ("someone@example.com", "invalid", False))

    def test_reads_a_disposable_address(self) -> None:
        data, error = self.client().verify("jane@mailinator.com")
        self.assertIsNone(error)
        assert data is not None
        self.assert_published(data)
        self.assertEqual((data["risk"], data["is_disposable"], data["disposable"]), ("risky", True, True))

    def test_wrong_key_is_unauthorized_without_the_key(self) -> None:
        wrong = "vh_" + secrets.token_urlsafe(32)
        data, error = Client(wrong, self.engine.url).verify("someone@example.com")
        self.assertIsNone(data)
        assert error is not None
        self.assertEqual((error.status, error.code, error.retry_after_ms), (401, "UNAUTHORIZED", None))
        self.assertNotIn(wrong, repr(error))

    def test_missing_email_is_a_400_naming_the_field(self) -> None:
        data, error = self.client().verify("")
        self.assertIsNone(data)
        assert error is not None
        self.assertEqual(error.status, 400)
        self.assertIn("email", error.message)

    def test_quota_429_is_returned_at_once(self) -> None:
        started = time.monotonic()
        data, error = Client(self.quota_key, self.engine.url).verify("someone@example.com")
        self.assertIsNone(data)
        assert error is not None
        self.assertEqual((error.status, error.code), (429, "QUOTA_EXCEEDED"))
        self.assertGreater(error.retry_after_ms or 0, 0)
        self.assertLess(time.monotonic() - started, 10)

    def test_rate_limit_429_is_waited_out(self) -> None:
        """The operator key's account allows 10 requests a second: 25 at once meet the engine's 429s and retry."""
        statuses: List[int] = []

        class Counting(Client):
            def _send(self, request):  # type: ignore[no-untyped-def]
                answer = super()._send(request)
                statuses.append(answer[0])
                return answer

        client = Counting(self.engine.api_key, self.engine.url, max_retries=10)
        with ThreadPoolExecutor(max_workers=25) as pool:
            answers = list(pool.map(lambda i: client.verify(f"user{i}@example.com"), range(25)))
        self.assertEqual([e for _, e in answers], [None] * 25)
        self.assertEqual(sorted(d["email"] for d, _ in answers if d), sorted(f"user{i}@example.com" for i in range(25)))
        self.assertIn(429, statuses)
        self.assertEqual(statuses.count(200), 25)


if __name__ == "__main__":
    unittest.main()
