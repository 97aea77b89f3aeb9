"""Schemathesis hooks for CI's run against the OpenAPI document (SCHEMATHESIS_HOOKS=schemathesis_hooks).

The document states every rule of a request that a schema can state. What it cannot state is either
about the world rather than the request (an object's status, whether an id names an object, the
processor's decline, a bound set by stored amounts), or a rule across values (`after` and `before`
are exclusive, a card number's Luhn digit, a card's details go with the type `card`, a time that
must lie ahead of now, a test clock moved by `to` or by `seconds`, a `decline_code` only with the
outcome `declined`). This file handles both, and nothing else:

- each generated request that is valid by the document is made valid by those cross-value rules too
  before it is sent (`before_call`), the way a client that read the reference would send it;
- `positive_data_acceptance` takes 400 too (`schemathesis.toml`), and `refused_only_for_state`
  fails every 400 to such a request that blames one of the request's own parameters
  (`parameter_*`, `idempotency_key_reused`): a 400 passes only for the world's state
  (`resource_invalid_state`, `resource_not_found`, a decline), for a stored field the request does
  not carry (finalizing a statement without a `due_at`), or for one of the bounds that stored amounts
  set, or a value another object holds (`STORED_STATE`).

Bodies are generated as JSON only. The service reads a form into the same parameters, but a form's
own rules are ones OpenAPI's form serialization cannot describe: no `null`, an empty value is an
absent parameter, `a[0]` is a list position (so a metadata key of digits is one), a list of objects
has no standard form style. The form decoder is tested on its own (crates/api/src/decode, and
every API test sends forms as PayRex's clients do). In a query string, which is always a form, a
positive request's metadata key of digits gets a letter in front.

The contract has a retrieval of a deleted customer answer its tombstone (`{"deleted": true}`), so
`use_after_free` runs as `use_after_free_but_tombstones` (the same check, passing a tombstone).

Values that name one thing, an Idempotency-Key and a customer's `billing_statement_prefix`, are
made fresh when drawn valid: a client makes a new key for each request, and a prefix another
customer holds is refused. A value drawn invalid is left for the service to refuse. Replays are
tested in crates/api/tests/api/idempotency.rs, taken prefixes in customers.rs.
"""

import copy
import json
import random
import re
import string
import time
import uuid

import schemathesis
from schemathesis.specs.openapi.checks import use_after_free

KEY = "Idempotency-Key"
MAX_KEY_LENGTH = 255
# The codes that blame the request itself rather than the state of what it names.
REQUEST_CODES = {
    "parameter_required",
    "parameter_invalid",
    "parameter_type_invalid",
    "parameter_below_minimum",
    "parameter_above_maximum",
    "idempotency_key_reused",
}
# Times a request sets that must lie in a window ahead of now: (at least, at most seconds ahead, or
# None for the document's own maximum). One outside its window is moved a day ahead (an hour for a
# checkout session, which expires 30 minutes to 24 hours ahead).
TIME_WINDOWS = {"due_at": (60, None, 24 * 3600), "expires_at": (31 * 60, 23 * 3600, 3600)}
PREFIX = re.compile(r"^[A-Z0-9]{3,15}$")
CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
FORM = "application/x-www-form-urlencoded"
# A checkout session's total (quantity × amount of its line items) lies within an amount's bounds.
TOTAL_MINIMUM, TOTAL_MAXIMUM = 2000, 5999999999
# Refusals for the state of stored objects that name a parameter: bounds that stored amounts set (a
# capture up to the amount held, a refund up to what is left of the payment, a line item while its
# statement's total with its other items stays within an amount's maximum), and a prefix another
# customer holds, or a method the intent does not allow. (operation, parameter, code)
STORED_STATE = {
    ("POST /customers", "billing_statement_prefix", "parameter_invalid"),
    ("PUT /customers/{id}", "billing_statement_prefix", "parameter_invalid"),
    # An inline method's type that the intent does not allow (its own payment_methods).
    ("POST /payment_intents/{id}/attach", "payment_method[type]", "parameter_invalid"),
    ("POST /payment_intents/{id}/capture", "amount", "parameter_above_maximum"),
    ("POST /refunds", "amount", "parameter_above_maximum"),
    ("POST /billing_statement_line_items", "unit_price", "parameter_above_maximum"),
    ("POST /billing_statement_line_items", "quantity", "parameter_above_maximum"),
    ("PUT /billing_statement_line_items/{id}", "unit_price", "parameter_above_maximum"),
    ("PUT /billing_statement_line_items/{id}", "quantity", "parameter_above_maximum"),
}


def is_positive(case):
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive


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
def filter_query(context, query):
    """A query string cannot carry null or an empty list (the HTTP client drops such a parameter, so
    the service never sees what schemathesis meant to send): such queries are not generated."""
    return not isinstance(query, dict) or all(value is not None and value != [] for value in query.values())


@schemathesis.hook
def before_call(context, case, kwargs):
    if case.media_type == FORM:
        case.media_type = "application/json"
    key = (case.headers or {}).get(KEY)
    if isinstance(key, str) and 1 <= len(key) <= MAX_KEY_LENGTH:
        case.headers[KEY] = uuid.uuid4().hex
    if is_positive(case):
        valid_across_values(case)


def documented_parameters(case):
    """The top-level names of the operation's parameters: path, query and body."""
    operation = case.operation
    names = {parameter.name for parameter in operation.iter_parameters()}
    for body in operation.body:
        schema = body.definition.get("schema", {}) if isinstance(body.definition, dict) else {}
        reference = schema.get("$ref", "")
        if reference.startswith("#/components/schemas/"):
            schema = operation.schema.raw_schema["components"]["schemas"][reference.rsplit("/", 1)[1]]
        names.update(schema.get("properties", {}))
    return names


@schemathesis.check
def use_after_free_but_tombstones(ctx, response, case):
    """schemathesis's use_after_free, but for the tombstone the contract answers of a deleted customer."""
    try:
        if json.loads(response.content).get("deleted") is True:
            return None
    except (ValueError, AttributeError):
        pass
    return use_after_free(ctx, response, case)


@schemathesis.check
def refused_only_for_state(ctx, response, case):
    """A request valid by the document is refused (400) only for the state of what it names."""
    if response.status_code != 400 or not is_positive(case):
        return None
    try:
        errors = json.loads(response.content)["errors"]
    except (ValueError, KeyError, TypeError):
        raise AssertionError("a 400 without the contract's error body") from None
    parameters = documented_parameters(case)
    operation = f"{case.operation.method.upper()} {case.operation.path}"
    blamed = [
        error
        for error in errors
        if error.get("code") in REQUEST_CODES
        and (error.get("parameter") is None or error["parameter"].split("[", 1)[0] in parameters)
        and (operation, error.get("parameter"), error.get("code")) not in STORED_STATE
    ]
    if blamed:
        raise AssertionError(f"A request the document allows was refused for its own parameters: {blamed}")
    return None
