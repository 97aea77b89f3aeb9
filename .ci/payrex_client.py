"""Drives a running service with PayRex's official Python client, unchanged but for its base URL, as a
merchant's backend would. Fails (exit status 1) on the first answer that is not what the client needs.

Usage: payrex_client.py BASE_URL SECRET_KEY
"""
import sys
import urllib.request

from payrex import Client
from payrex import RequestInvalidException
from payrex import SetupIntentEntity

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

    # Saving a card with a setup intent, paying with it later, and removing it.
    saver = client.customers.create({"name": "Cy", "email": "cy@example.com", "currency": "PHP"})
    setup = client.setup_intents.create(
        {"customer_id": saver.id, "payment_methods": ["card"], "usage": "off_session"}
    )
    check(setup.status == "awaiting_payment_method" and setup.customer["id"] == saver.id, "a setup intent is created")
    # The client has no attach for setup intents; its generic request sends the same form a browser would.
    saved = client.setup_intents.request(
        method="post",
        object=SetupIntentEntity,
        path=f"setup_intents/{setup.id}/attach",
        payload={"payment_method": {"type": "card", "card": card}},
    )
    check(saved.status == "succeeded", "a card is saved through the setup intent's attach")
    check(client.setup_intents.retrieve(setup.id).status == "succeeded", "the setup intent is retrieved")
    methods = client.customers.list_payment_methods(saver.id)
    check(len(methods.data) == 1 and methods.data[0].details["last4"] == "4242", "the saved card is listed")
    method_id = methods.data[0].id
    later = client.payment_intents.create(
        {"amount": 25000, "currency": "PHP", "payment_methods": ["card"], "customer_id": saver.id}
    )
    paid_later = client.payment_intents.attach(later.id, {"payment_method_id": method_id})
    check(paid_later.status == "succeeded", "a later intent is paid with the saved card")
    unused = client.setup_intents.create({"customer_id": saver.id, "payment_methods": ["card"]})
    check(client.setup_intents.cancel(unused.id).status == "canceled", "a setup intent is canceled")
    session = client.customer_sessions.create(
        {
            "customer_id": saver.id,
            "components": [
                {"component": "payment_element", "feature": "payment_method_redisplay", "value": "enabled"}
            ],
        }
    )
    check(session.id.startswith("cus_s_") and session.expired is False, "a customer session is created")
    check(client.customer_sessions.retrieve(session.id).components == session.components, "and retrieved")
    deleted = client.customers.delete_payment_method(saver.id, {"payment_method_id": method_id})
    check(deleted.deleted is True, "the saved card is deleted")
    check(client.customers.list_payment_methods(saver.id).data == [], "and no longer listed")

    # Checkout sessions: create, retrieve, list, expire; the page answers at the session's url.
    checkout = client.checkout_sessions.create(
        {
            "line_items": [
                {"name": "Mug", "amount": 150000, "quantity": 2},
                {"name": "Tea", "amount": 12345, "quantity": 1, "description": "Green tea"},
            ],
            "success_url": "https://shop.example/done",
            "cancel_url": "https://shop.example/cart",
            "payment_methods": ["card", "gcash"],
            "metadata": {"order": "42"},
        }
    )
    check(checkout.id.startswith("cs_") and checkout.status == "active", "a checkout session is created")
    check(checkout.payment_intent["amount"] == 312345, "its intent is for the line items' total")
    check(client.checkout_sessions.retrieve(checkout.id).url == checkout.url, "and retrieved")
    check(checkout.id in [s.id for s in client.checkout_sessions.list({"limit": 5}).data], "and listed")
    with urllib.request.urlopen(checkout.url) as page:
        check(page.status == 200 and "Pay ₱3,123.45" in page.read().decode(), "its page offers to pay the total")
    expired = client.checkout_sessions.expire(checkout.id)
    check(expired.status == "expired" and expired.payment_intent["status"] == "canceled", "and it expires")

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
