"""Drives a running service with PayRex's official Python client, unchanged but for its base URL, as a
merchant's backend would. Fails (exit status 1) on the first answer that is not what the client needs.

Usage: payrex_client.py BASE_URL SECRET_KEY
"""
import sys

from payrex import Client
from payrex import RequestInvalidException

EVENT_TYPES = [
    "payment_intent.succeeded",
    "payment_intent.awaiting_capture",
    "payment_intent.canceled",
    "payment.paid",
    "payment.failed",
    "payment.refunded",
    "refund.created",
    "refund.updated",
    "checkout_session.completed",
    "checkout_session.expired",
    "setup_intent.succeeded",
    "billing_statement.paid",
]


def check(condition, message):
    if not condition:
        sys.exit(f"payrex-python check failed: {message}")
    print(f"ok: {message}")


def main(base_url, secret_key):
    client = Client(secret_key)
    client.config.api_base_url = base_url.rstrip("/")

    # Lists longer than ten: the client sends [] for the first ten positions and [10], [11] after.
    webhook = client.webhooks.create(
        {"url": "http://127.0.0.1:9/hooks", "events": EVENT_TYPES, "description": "payrex-python"}
    )
    check(list(webhook.events) == EVENT_TYPES, "a webhook listens to twelve event types, in order")
    bins = ["424242"] + [str(520000 + i) for i in range(11)]
    intent = client.payment_intents.create(
        {
            "amount": 10000,
            "currency": "PHP",
            "payment_methods": ["card", "gcash"],
            "payment_method_options": {"card": {"allowed_bins": bins}},
        }
    )
    check(
        intent.payment_method_options["card"]["allowed_bins"] == bins,
        "an intent keeps twelve allowed BINs, in order",
    )

    # Paying: the client's attach with an inline card whose BIN is allowed.
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    paid = client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": card}})
    check(paid.status == "succeeded" and paid.latest_payment["status"] == "paid", "a card pays through attach")

    # Customers filtered by metadata: the client sends the keys only (`metadata=tier`).
    gold = client.customers.create(
        {"name": "Ana", "email": "ana@example.com", "currency": "PHP", "metadata": {"tier": "gold"}}
    )
    client.customers.create({"name": "Ben", "email": "ben@example.com", "currency": "PHP"})
    listed = client.customers.list({"metadata": {"tier": "gold"}})
    check([c.id for c in listed.data] == [gold.id], "the customer list filters by metadata")

    # A bad request is a RequestInvalidException carrying every error.
    try:
        client.payment_intents.create({})
    except RequestInvalidException as error:
        codes = sorted(e.parameter for e in error.errors)
        check(codes == ["amount", "currency", "payment_methods"], "an empty create names all three parameters")
    else:
        sys.exit("an empty payment intent was accepted")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
