"""Official Python client of the verify-hub engine API (standard library only).

    from verify_hub import Client

    data, error = Client(api_key, "http://127.0.0.1:8081").verify("john@acme-mail.com")
"""

from .client import QUOTA_RESET_THRESHOLD_MS, Client, VerifyHubError, VerifyResponse, parse_rate_limit_reset
from .types import Authentication, Blacklist, Deliverability, Extensions, FieldSetA, FieldSetB, Risk, VerificationResult

__version__ = "0.1.0"

__all__ = [
    "Client",
    "VerifyHubError",
    "VerifyResponse",
    "parse_rate_limit_reset",
    "QUOTA_RESET_THRESHOLD_MS",
    "VerificationResult",
    "FieldSetA",
    "FieldSetB",
    "Extensions",
    "Deliverability",
    "Authentication",
    "Blacklist",
    "Risk",
]
