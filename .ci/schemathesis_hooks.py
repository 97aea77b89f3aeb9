"""Schemathesis hooks for CI's shaped run against the OpenAPI document
(SCHEMATHESIS_HOOKS=schemathesis_hooks); the checks of both runs are in schemathesis_checks.py, which
this file loads.

The document states every rule of a request that a schema can state, rules between parameters of a
body included (a test clock moved by `to` or by `seconds`, a `decline_code` only with the outcome
`declined`). What it states only in words are rules across values that a schema cannot hold: `after`
and `before` are exclusive (query parameters are each their own), a card number's Luhn digit, a
card's details go with the type `card`, exactly one of `payment_method` and `payment_method_id`, a
time that must lie ahead of now, a checkout session's total. Each generated request that is valid by
the document is made to keep those too before it is sent (`before_call`), the way a client that read
the reference would send it, so that the run reaches the paths behind them.

Bodies are generated as JSON only. The service reads a form into the same parameters, but a form's
own rules are ones OpenAPI's form serialization cannot describe: no `null`, an empty value is an
absent parameter, `a[0]` is a list position (so a metadata key of digits is one), a list of objects
has no standard form style. The form decoder is tested on its own (crates/api/src/decode, and
every API test sends forms as PayRex's clients do). In a query string, which is always a form, a
positive request's metadata key of digits gets a letter in front.

Values that name one thing, an Idempotency-Key and a customer's `billing_statement_prefix`, are
made fresh when drawn valid: a client makes a new key for each request, and a prefix another
customer holds is refused. A value drawn invalid is left for the service to refuse. Replays are
tested in crates/api/tests/api/idempotency.rs, taken prefixes in customers.rs.
"""

import copy
import random
import re
import string
import time
import uuid

import schemathesis
from schemathesis_checks import is_positive, json_bodies  # and registers the checks of both runs

KEY = "Idempotency-Key"
MAX_KEY_LENGTH = 255
# Times a request sets that must lie in a window ahead of now: (at least, at most seconds ahead, or
# None for the document's own maximum). One outside its window is moved a day ahead (an hour for a
# checkout session, which expires 30 minutes to 24 hours ahead).
TIME_WINDOWS = {"due_at": (60, None, 24 * 3600), "expires_at": (31 * 60, 23 * 3600, 3600)}
PREFIX = re.compile(r"^[A-Z0-9]{3,15}$")
CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
# A checkout session's total (quantity × amount of its line items) lies within an amount's bounds.
TOTAL_MINIMUM, TOTAL_MAXIMUM = 2000, 5999999999


def as_whole(value):
    """`value` as an int when it is a whole number (JSON Schema counts 2000.0 as one), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def luhn_completed(digits):
    """`digits` with its last digit replaced by the Luhn check digit of the others."""
    body = digits[:-1]
    total = 0
    for position, digit in enumerate(reversed(body)):
        value = int(digit) * (2 if position % 2 == 0 else 1)
        total += value - 9 if value > 9 else value
    return body + str((10 - total % 10) % 10)


def with_valid_card_number(card):
    number = card.get("number")
    if isinstance(number, str):
        digits = number.replace(" ", "")
        if digits.isdigit() and 12 <= len(digits) <= 19:
            card["number"] = luhn_completed(digits)
    elif as_whole(number) is not None and 12 <= len(str(as_whole(number))) <= 19:
        card["number"] = int(luhn_completed(str(as_whole(number))))


POSITIONAL_METADATA = re.compile(r"^metadata\[([0-9]+)\]$")


def form_safe_keys(query):
    """`query` (its maps already spelled `metadata[key]`) with each metadata key of digits, a list
    position in a form, given a letter in front."""
    return {POSITIONAL_METADATA.sub(r"metadata[k\1]", key): value for key, value in query.items()}


def with_total_in_bounds(items):
    """Line items whose total (quantity × amount) lies within an amount's bounds."""
    valid = [item for item in items if isinstance(item, dict)]
    amounts = [(as_whole(item.get("quantity")), as_whole(item.get("amount"))) for item in valid]
    if not valid or any(q is None or a is None for q, a in amounts):
        return
    total = sum(q * a for q, a in amounts)
    if total < TOTAL_MINIMUM:
        others = total - amounts[0][0] * amounts[0][1]
        valid[0]["quantity"], valid[0]["amount"] = 1, TOTAL_MINIMUM - others
    elif total > TOTAL_MAXIMUM:
        for item in valid:
            item["quantity"], item["amount"] = 1, TOTAL_MAXIMUM // len(valid)


def valid_across_values(case):
    """Makes a request the document allows valid by the rules between its values too."""
    query = case.query
    if isinstance(query, dict):
        query = form_safe_keys(query)
        if query.get("after") not in (None, "") and query.get("before") not in (None, ""):
            del query["before"]
        case.query = query
    if case.operation.path == "/test_helpers/clock/advance":
        # The account's clock stays at real time, so that the time windows above hold for the rest
        # of the run; moves are tested in crates/api/tests/api/test_clocks.rs.
        case.body = {"seconds": 0}
        case.media_type = "application/json"
        return
    if not isinstance(case.body, dict) and case.operation.path.endswith("/attach"):
        case.body = {}
        case.media_type = "application/json"
    body = case.body
    if not isinstance(body, dict):
        return
    # Edited on a copy, then set whole: schemathesis notices a new body, not every nested edit.
    body = copy.deepcopy(body)
    if isinstance(body.get("line_items"), list) and case.operation.path == "/checkout_sessions":
        with_total_in_bounds(body["line_items"])
    if case.operation.path.startswith("/test_helpers/") and body.get("outcome") == "approved":
        body.pop("decline_code", None)
    # Exactly one of payment_method and payment_method_id.
    if body.get("payment_method") not in (None, "") and "payment_method_id" in body:
        del body["payment_method_id"]
    if case.operation.path.endswith("/attach") and body.get("payment_method") in (None, ""):
        if body.get("payment_method_id") in (None, ""):
            body["payment_method"] = {"type": "card", "card": dict(CARD)}
    now = int(time.time())
    for name, (earliest, latest, moved) in TIME_WINDOWS.items():
        value = as_whole(body.get(name))
        if value is not None and (value < now + earliest or (latest is not None and value > now + latest)):
            body[name] = now + moved
    prefix = body.get("billing_statement_prefix")
    if isinstance(prefix, str) and PREFIX.match(prefix):
        body["billing_statement_prefix"] = "".join(random.choices(string.ascii_uppercase, k=12))
    method = body.get("payment_method")
    if isinstance(method, dict):
        if method.get("type") == "card" and not isinstance(method.get("card"), dict):
            method["card"] = dict(CARD)
        elif method.get("type") != "card":
            method.pop("card", None)
        if isinstance(method.get("card"), dict):
            with_valid_card_number(method["card"])
    case.body = body


@schemathesis.hook
def before_call(context, case, kwargs):
    json_bodies(case)
    key = (case.headers or {}).get(KEY)
    if isinstance(key, str) and 1 <= len(key) <= MAX_KEY_LENGTH:
        case.headers[KEY] = uuid.uuid4().hex
    if is_positive(case):
        valid_across_values(case)


