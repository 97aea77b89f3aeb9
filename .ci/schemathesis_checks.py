"""Schemathesis checks for both of CI's runs against the OpenAPI document (SCHEMATHESIS_HOOKS).

CI runs schemathesis twice, with every check. The strict run loads this file alone: requests go out
as schemathesis draws them from the document, so a document looser than the service shows up. The
shaped run (schemathesis_hooks.py) also makes each request keep the rules between values that the
document states in words, as a client that read the reference would, so that its requests reach the
service's deeper paths.

What no document can state is not the request's fault, and both runs pass it:

- `positive_data_acceptance` takes 400 too (`schemathesis.toml`), and `refused_only_for_state`
  fails every 400 to a request valid by the document that blames one of the request's own
  parameters (`parameter_*`), unless the refusal is about the world rather than the request:
  the state of what it names (`resource_invalid_state`, `resource_not_found`, a decline), a reused
  `Idempotency-Key` (`idempotency_key_reused`; a drawn key may repeat), or one of `UNSTATABLE`: a
  bound that stored amounts set, a value another object holds, a time that must lie ahead of now
  or of the test clock, a total across list items; an operation of `STATE_CHECKED_OPERATIONS` (an
  order on a page, checked against the page) is refused for its page alone;
- the contract has a retrieval of a deleted customer answer its tombstone (`{"deleted": true}`), so
  `use_after_free` runs as `use_after_free_but_tombstones` (the same check, passing a tombstone);
- a query string cannot carry `null` or an empty list (the HTTP client drops such a parameter), so
  such queries are not drawn (`filter_query`); and its parameters are each their own, so the rule
  that `after` and `before` are exclusive is stated in words only (`UNSTATABLE_IN_QUERIES`);
- bodies go as JSON (`json_bodies`): the service reads a form into the same parameters, but a form's
  own rules are ones OpenAPI's form serialization cannot describe (no `null`, an empty value is an
  absent parameter, `a[0]` is a list position, a list of objects has no standard form style). The
  form decoder is tested on its own (crates/api/src/decode, and every API test sends forms as
  PayRex's clients do).
"""

import json
import re

import schemathesis
from schemathesis.specs.openapi.checks import use_after_free

# The codes that blame the request itself rather than the state of what it names.
REQUEST_CODES = {
    "parameter_required",
    "parameter_invalid",
    "parameter_type_invalid",
    "parameter_below_minimum",
    "parameter_above_maximum",
}
# Refusals of a parameter that no document can state (operation, parameter, code): bounds that
# stored amounts set (a capture up to the amount held, a refund up to what is left of the payment,
# a line item while its statement's total with its other items stays within an amount's maximum), a
# prefix another customer holds, a method the intent does not allow, a time that must lie ahead of
# now or of the account's test clock, and a checkout session's total across its line items.
UNSTATABLE = {
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
    ("POST /billing_statements", "due_at", "parameter_below_minimum"),
    ("PUT /billing_statements/{id}", "due_at", "parameter_below_minimum"),
    ("POST /checkout_sessions", "expires_at", "parameter_below_minimum"),
    ("POST /checkout_sessions", "expires_at", "parameter_above_maximum"),
    ("POST /checkout_sessions", "line_items", "parameter_below_minimum"),
    ("POST /checkout_sessions", "line_items", "parameter_above_maximum"),
    ("POST /test_helpers/clock/advance", "to", "parameter_below_minimum"),
    ("POST /test_helpers/clock/advance", "to", "parameter_above_maximum"),
    # A clock stands at most ten years ahead of real time, wherever earlier moves left it.
    ("POST /test_helpers/clock/advance", "seconds", "parameter_above_maximum"),
    # A save is asked with the client secret of a live session of the intent's customer that enables
    # it, for a card entered now: stored data (the session, the intent's customer), not the request.
    ("POST /payment_intents/{id}/attach", "customer_session_client_secret", "parameter_invalid"),
    # A processor's token for a card pays in live mode only: the key's mode, not the request.
    ("POST /payment_intents/{id}/attach", "payment_method[card][token]", "parameter_invalid"),
    # A renewed card's expiry must not have passed: time.
    ("POST /customers/{customer_id}/payment_methods/{id}", "exp_year", "parameter_invalid"),
    # A card number's last digit is its Luhn check digit.
    ("POST /payment_intents/{id}/attach", "payment_method[card][number]", "parameter_invalid"),
    ("POST /setup_intents/{id}/attach", "payment_method[card][number]", "parameter_invalid"),
    # A page's maximum amount, and a number field's maximum, at least its minimum: two values
    # compared, which JSON Schema cannot state.
    ("POST /pages", "maximum_amount", "parameter_invalid"),
    ("PUT /pages/{id}", "maximum_amount", "parameter_invalid"),
    ("POST /pages", "custom_fields[][maximum]", "parameter_invalid"),
    ("PUT /pages/{id}", "custom_fields[][maximum]", "parameter_invalid"),
}

# Operations whose every refusal of a parameter is against the object they name: an order on a
# page is checked against the page (the amount only a customer-chosen page takes, within its
# bounds; quantities of its own prices, at least one unit; answers to its own questions, the
# required ones given), so the document states the order's shape and the page states the rest.
STATE_CHECKED_OPERATIONS = {"POST /test_helpers/pages/{id}/orders"}

# Refusals of a query parameter that no document can state, in any operation: `after` and `before`
# are exclusive. (parameter, code)
UNSTATABLE_IN_QUERIES = {("before", "parameter_invalid")}
FORM = "application/x-www-form-urlencoded"


def json_bodies(case):
    """Sends a body drawn as a form as JSON instead (see the module's docstring)."""
    if case.media_type == FORM:
        case.media_type = "application/json"


def is_positive(case):
    meta = case.meta
    return meta is not None and meta.generation.mode.is_positive


@schemathesis.hook
def filter_query(context, query):
    """A query string cannot carry null or an empty list (the HTTP client drops such a parameter, so
    the service never sees what schemathesis meant to send): such queries are not generated."""
    return not isinstance(query, dict) or all(value is not None and value != [] for value in query.values())


def listed(parameter):
    """A parameter's name with each list position written `[]` (`custom_fields[1][maximum]` is
    `custom_fields[][maximum]`), as UNSTATABLE names it."""
    return re.sub(r"\[\d+\]", "[]", parameter) if parameter else parameter


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
    if operation in STATE_CHECKED_OPERATIONS:
        return None
    blamed = [
        error
        for error in errors
        if error.get("code") in REQUEST_CODES
        and (error.get("parameter") is None or error["parameter"].split("[", 1)[0] in parameters)
        and (operation, listed(error.get("parameter")), error.get("code")) not in UNSTATABLE
        and (case.operation.method.upper() != "GET" or (error.get("parameter"), error.get("code")) not in UNSTATABLE_IN_QUERIES)
    ]
    if blamed:
        raise AssertionError(f"A request the document allows was refused for its own parameters: {blamed}")
    return None
