"""Schemathesis hooks for CI's run against the OpenAPI document.

An Idempotency-Key names one request: a client makes a new one for every request it means to be
new. Schemathesis draws header values from their schema, so two different requests often draw the
same short key, which the service rightly refuses (400 idempotency_key_reused). Every valid key it
draws is therefore replaced by a fresh one of the same validity; a key drawn invalid (empty, too
long) is left as it is, so the service's refusal of those is still checked. Replays themselves are
tested in crates/api/tests/api/idempotency.rs.
"""

import uuid

import schemathesis

KEY = "Idempotency-Key"
MAX_KEY_LENGTH = 255


@schemathesis.hook
def before_call(context, case, kwargs):
    key = (case.headers or {}).get(KEY)
    if isinstance(key, str) and 1 <= len(key) <= MAX_KEY_LENGTH:
        case.headers[KEY] = uuid.uuid4().hex
