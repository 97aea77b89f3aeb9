"""Every entity class of PayRex's official clients, read against a real answer of this service.

The clients' entities read their attributes with `data.get(name)` (Python) or `data.name` (Node),
so a field the service leaves out silently becomes `None` or `undefined`. This reads the names each
entity class asks for from the class's own source (payrex-python's installed here, and payrex-node's
when its `src/entities` directory is given), makes one object of each kind through the Python
client, fetches each one's answer as JSON, and fails naming every field a class reads that the
answer lacks.

Payouts come from four days of the account's test clock, listed through the Python client's
`payouts.list_transactions`.

Usage: payrex_entities.py BASE_URL SECRET_KEY [PAYREX_NODE_ENTITIES_DIR]
"""
import ast
import base64
import inspect
import json
import pathlib
import re
import sys
import time
import urllib.request

import payrex
from payrex import Client

NOT_SERVED = {"ListingEntity"}
CARD = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}


def fields_read(entity_class):
    """The names an entity class reads with `data.get('…')`."""
    tree = ast.parse(inspect.getsource(entity_class))
    return [
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ]


def node_fields_read(source):
    """The names a payrex-node entity reads as `data.name`."""
    return list(dict.fromkeys(re.findall(r"\bdata\.([a-z_]+)", source)))


def main(base_url, secret_key, node_entities=None):
    base_url = base_url.rstrip("/")
    client = Client(secret_key)
    client.config.api_base_url = base_url
    authorization = "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode()

    def answer(method, path, body=None):
        headers = {"Authorization": authorization, "Content-Type": "application/json"}
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(base_url + path, data=data, method=method, headers=headers)
        with urllib.request.urlopen(request) as response:
            return json.load(response)

    customer = client.customers.create({"name": "Entity Check", "email": "entities@example.com", "currency": "PHP"})
    intent = client.payment_intents.create({"amount": 10000, "currency": "PHP", "payment_methods": ["card"]})
    paid = client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": CARD}})
    payment_id = paid.latest_payment["id"]
    refund = client.refunds.create(
        {"amount": 2500, "currency": "PHP", "payment_id": payment_id, "reason": "requested_by_customer"}
    )
    setup = client.setup_intents.create({"customer_id": customer.id, "payment_methods": ["card"]})
    # The client has no setup intent attach (a browser saves the card); the API call it would make:
    answer("POST", f"/setup_intents/{setup.id}/attach", {"payment_method": {"type": "card", "card": CARD}})
    session = client.customer_sessions.create({"customer_id": customer.id})
    checkout = client.checkout_sessions.create(
        {
            "line_items": [{"name": "Mug", "amount": 150000, "quantity": 1}],
            "success_url": "https://shop.example/done",
            "cancel_url": "https://shop.example/cart",
            "payment_methods": ["card"],
        }
    )
    statement = client.billing_statements.create(
        {
            "customer_id": customer.id,
            "due_at": int(time.time()) + 7 * 24 * 60 * 60,
            "payment_settings": {"payment_methods": ["card"]},
        }
    )
    item = client.billing_statement_line_items.create(
        {"billing_statement_id": statement.id, "description": "Plan", "unit_price": 150000, "quantity": 1}
    )
    client.billing_statements.finalize(statement.id)
    webhook = client.webhooks.create({"url": "https://hooks.example/entities", "events": ["payment.paid"]})
    deleted = client.customers.create({"name": "Gone", "email": "gone@example.com", "currency": "PHP"})
    answer("POST", "/test_helpers/clock/advance", {"seconds": 4 * 24 * 60 * 60})
    payouts = answer("GET", "/payouts?limit=1")["data"]
    if not payouts:
        sys.exit("payrex-python entity check failed: four days made no payout")
    lines = client.payouts.list_transactions(payouts[0]["id"], {"limit": 100})
    if not lines.data or not all(line.transaction_type for line in lines.data):
        sys.exit("payrex-python entity check failed: payouts.list_transactions read no line")
    transactions = answer("GET", f"/payouts/{payouts[0]['id']}/transactions")["data"]
    methods = answer("GET", f"/customers/{customer.id}/payment_methods")["data"]
    events = answer("GET", f"/events?object_id={intent.id}")["data"]
    if not methods or not events:
        sys.exit("payrex-python entity check failed: no saved payment method or no event to read")

    answers = {
        "BillingStatementEntity": answer("GET", f"/billing_statements/{statement.id}"),
        "BillingStatementLineItemEntity": answer("GET", f"/billing_statement_line_items/{item.id}"),
        "CheckoutSessionEntity": answer("GET", f"/checkout_sessions/{checkout.id}"),
        "CustomerEntity": answer("GET", f"/customers/{customer.id}"),
        "CustomerSessionEntity": answer("GET", f"/customer_sessions/{session.id}"),
        "DeletedEntity": answer("DELETE", f"/customers/{deleted.id}"),
        "EventEntity": events[0],
        "PaymentEntity": answer("GET", f"/payments/{payment_id}"),
        "PaymentIntentEntity": answer("GET", f"/payment_intents/{intent.id}"),
        "PaymentMethodEntity": methods[0],
        "PayoutEntity": answer("GET", f"/payouts/{payouts[0]['id']}"),
        "PayoutTransactionEntity": transactions[0],
        "RefundEntity": answer("PUT", f"/refunds/{refund.id}", {"metadata": {"checked": "yes"}}),
        "SetupIntentEntity": answer("GET", f"/setup_intents/{setup.id}"),
        "WebhookEntity": answer("GET", f"/webhooks/{webhook.id}"),
    }
    readers = {
        f"payrex-python {name}": fields_read(cls)
        for name, cls in inspect.getmembers(payrex, inspect.isclass)
        if name.endswith("Entity") and name not in NOT_SERVED
    }
    if node_entities:
        for path in sorted(pathlib.Path(node_entities).glob("*Entity.js")):
            if path.stem not in NOT_SERVED:
                readers[f"payrex-node {path.stem}"] = node_fields_read(path.read_text())
    missing = []
    for reader, fields in sorted(readers.items()):
        body = answers.get(reader.split(" ", 1)[1])
        if body is None:
            missing.append(f"{reader}: no answer to read it from")
            continue
        absent = [field for field in fields if field not in body]
        if absent:
            missing.append(f"{reader}: {', '.join(absent)}")
        else:
            print(f"ok: {reader} finds its {len(fields)} fields")
    if missing:
        sys.exit("entity check failed, fields missing from the answers:\n  " + "\n  ".join(missing))


if __name__ == "__main__":
    main(*sys.argv[1:4])
