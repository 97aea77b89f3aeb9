"""Drives a running service with PayRex's official Python client, unchanged but for its base URL, as a
merchant's backend would. Fails (exit status 1) on the first answer that is not what the client needs.

Usage: payrex_client.py BASE_URL SECRET_KEY CLOCK_SECRET_KEY

CLOCK_SECRET_KEY is another account's, whose test clock the last check moves: the first account's
clock stays at real time.
"""
import base64
import http.cookiejar
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

from payrex import Client
from payrex import RequestInvalidException
from payrex import SetupIntentEntity
from payrex.api_resource import ApiResource
from payrex.entities.payment_entity import PaymentEntity
from standardwebhooks.webhooks import Webhook

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


def main(base_url, secret_key, clock_secret_key):
    client = Client(secret_key)
    client.config.api_base_url = base_url.rstrip("/")

    # Lists longer than ten: the client sends [] for the first ten positions and [10], [11] after.
    webhook = client.webhooks.create(
        {"url": "http://127.0.0.1:9/hooks", "events": EVENT_TYPES, "description": "payrex-python"}
    )
    check(list(webhook.events) == EVENT_TYPES, "a webhook listens to twelve event types, in order")
    client.webhooks.disable(webhook.id)
    disabled = [w.id for w in client.webhooks.list({"status": "disabled", "limit": 100}).data]
    enabled = [w.id for w in client.webhooks.list({"status": "enabled", "limit": 100}).data]
    check(webhook.id in disabled and webhook.id not in enabled, "the webhook list filters by status")
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

    # Customers filtered by metadata: the client sends the keys only (`metadata=tier_…`). The key is
    # this run's own, so customers already in the database do not match.
    tier = f"tier_{secrets.token_hex(4)}"
    gold = client.customers.create(
        {"name": "Ana", "email": "ana@example.com", "currency": "PHP", "metadata": {tier: "gold"}}
    )
    client.customers.create({"name": "Ben", "email": "ben@example.com", "currency": "PHP"})
    listed = client.customers.list({"metadata": {tier: "gold"}})
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
    by_status = [s.id for s in client.checkout_sessions.list({"status": "expired", "limit": 100}).data]
    still_active = [s.id for s in client.checkout_sessions.list({"status": "active", "limit": 100}).data]
    check(checkout.id in by_status and checkout.id not in still_active, "the list filters by status")

    check_billing_statements(client, base_url.rstrip("/"), secret_key)
    check_console(client, base_url.rstrip("/"), secret_key)
    check_pages(client, base_url.rstrip("/"), secret_key)

    # A bad request is a RequestInvalidException carrying every error.
    try:
        client.payment_intents.create({})
    except RequestInvalidException as error:
        codes = sorted(e.parameter for e in error.errors)
        check(codes == ["amount", "currency", "payment_methods"], "an empty create names all three parameters")
    else:
        sys.exit("an empty payment intent was accepted")

    check_secret_rotation(client, base_url.rstrip("/"), secret_key)
    check_listen(client, base_url.rstrip("/"), secret_key)

    clock_client = Client(clock_secret_key)
    clock_client.config.api_base_url = base_url.rstrip("/")
    check_test_clock(clock_client, base_url.rstrip("/"), clock_secret_key)
    own = urllib.request.Request(base_url.rstrip("/") + "/test_helpers/clock")
    own.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
    with urllib.request.urlopen(own) as answer:
        check(json.load(answer)["seconds_ahead"] == 0, "another account's clock did not move")


def check_billing_statements(client, base_url, secret_key):
    """Billing statements as a merchant runs them: a draft with line items, finalized, sent (the e-mail
    is in the test mailbox, as no SMTP server is configured here), paid by the customer on its page,
    and the other ways a statement closes."""
    customer = client.customers.create(
        {"name": "Rosa Reyes", "email": "rosa@example.com", "currency": "PHP", "billing_statement_prefix": "PYCI"}
    )
    due_at = int(time.time()) + 7 * 24 * 60 * 60
    statement = client.billing_statements.create(
        {
            "customer_id": customer.id,
            "due_at": due_at,
            "payment_settings": {"payment_methods": ["card", "gcash"]},
            "metadata": {"invoice": "7"},
        }
    )
    check(statement.id.startswith("bstm_") and statement.status == "draft", "a billing statement is drafted")
    plan = client.billing_statement_line_items.create(
        {"billing_statement_id": statement.id, "description": "Monthly plan", "unit_price": 150000, "quantity": 2}
    )
    fee = client.billing_statement_line_items.create(
        {"billing_statement_id": statement.id, "description": "Setup fee", "unit_price": 50000, "quantity": 1}
    )
    check(plan.id.startswith("bstm_li_") and plan.billing_statement_id == statement.id, "line items are added")
    check(client.billing_statement_line_items.update(fee.id, {"quantity": 2}).quantity == 2, "a line item is updated")
    check(client.billing_statement_line_items.retrieve(plan.id).unit_price == 150000, "and retrieved")
    check(client.billing_statement_line_items.delete(fee.id).deleted is True, "and deleted")
    updated = client.billing_statements.update(statement.id, {"description": "November plan"})
    check(updated.description == "November plan", "the draft is updated")
    drafts = client.billing_statements.list({"customer_id": customer.id, "status": "draft"}).data
    check([s.id for s in drafts] == [statement.id], "and listed by customer and status")

    opened = client.billing_statements.finalize(statement.id)
    check(
        opened.status == "open" and opened.billing_statement_number == "PYCI-0001",
        "finalizing numbers it from the customer's prefix",
    )
    check(opened.payment_intent["amount"] == 300000, "its intent is for the line items' total")
    check(opened.billing_statement_url.startswith(base_url + "/b/"), "and it has a page")
    check(client.billing_statements.send(opened.id) is None, "it is sent")

    mailbox = urllib.request.Request(base_url + "/test/mailbox")
    mailbox.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
    page = ""
    for _ in range(50):
        with urllib.request.urlopen(mailbox) as answer:
            page = answer.read().decode()
        if "PYCI-0001" in page:
            break
        time.sleep(0.1)
    check(
        "Billing statement PYCI-0001" in page and opened.billing_statement_url in page,
        "the e-mail with the link is in the test mailbox",
    )

    # The customer pays on the page, as a browser without JavaScript would.
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with browser.open(opened.billing_statement_url) as answer:
        form = answer.read().decode()
    check("Pay ₱3,000.00" in form and "Rosa Reyes" in form, "the page shows the statement and its total")
    token = re.search(r'name="form_token" value="([A-Za-z0-9]+)"', form).group(1)
    fields = {
        "form_token": token,
        "payment_method[type]": "card",
        "payment_method[card][number]": "4242424242424242",
        "payment_method[card][exp_month]": "12",
        "payment_method[card][exp_year]": "35",
        "payment_method[card][cvc]": "123",
        "payment_method[billing][name]": "Rosa Reyes",
        "payment_method[billing][email]": "rosa@example.com",
        "payment_method[billing][address][line1]": "1 Mabini St",
        "payment_method[billing][address][city]": "Cebu",
        "payment_method[billing][address][postal_code]": "6000",
        "payment_method[billing][address][country]": "PH",
    }
    with browser.open(opened.billing_statement_url, urllib.parse.urlencode(fields).encode()) as answer:
        check("is paid" in answer.read().decode(), "the customer pays on the page")
    paid = client.billing_statements.retrieve(opened.id)
    check(paid.status == "paid" and paid.billing_statement_url is None, "and the statement is paid")

    others = [
        client.billing_statements.create({"customer_id": customer.id, "due_at": due_at}) for _ in range(3)
    ]
    check(client.billing_statements.delete(others[0].id).deleted is True, "a draft is deleted")
    for other in others[1:]:
        client.billing_statement_line_items.create(
            {"billing_statement_id": other.id, "description": "Work", "unit_price": 5000, "quantity": 1}
        )
        client.billing_statements.finalize(other.id)
    voided = client.billing_statements.void(others[1].id)
    check(voided.status == "void" and voided.payment_intent["status"] == "canceled", "an open statement is voided")
    closed = client.billing_statements.mark_uncollectible(others[2].id)
    check(closed.status == "uncollectible", "and another marked uncollectible")
    try:
        client.billing_statement_line_items.create(
            {"billing_statement_id": closed.id, "description": "Late", "unit_price": 5000, "quantity": 1}
        )
    except RequestInvalidException as error:
        check(error.errors[0].code == "resource_invalid_state", "a closed statement takes no line items")
    else:
        sys.exit("a line item was added to a closed statement")


def check_pages(client, base_url, secret_key):
    """A customer's order on a storefront page (made through this service's own API, which the
    client has no calls for), paid through the client's attach: the client's Payment reads
    page_session, from a retrieval and from the payment.paid event."""

    def call(path, body):
        request = urllib.request.Request(base_url + path, json.dumps(body).encode(), method="POST")
        request.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    product = call("/products", {"name": "Mug", "description": "Stoneware"})
    price = call("/prices", {"product_id": product["id"], "amount": 25000, "description": "Each"})
    page = call(
        "/pages",
        {
            "title": "Merch",
            "template": "storefront",
            "prices": [price["id"]],
            "payment_methods": ["card"],
            "custom_fields": [{"name": "Size", "type": "dropdown", "options": ["S", "M"], "required": True}],
        },
    )
    size = page["custom_fields"][0]["id"]
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    webhook = client.webhooks.create({"url": hook_url, "events": ["payment.paid"], "description": "pages"})
    order = urllib.parse.urlencode({f"quantity[{price['id']}]": "2", f"custom_fields[{size}]": "M"}).encode()

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    try:
        urllib.request.build_opener(NoRedirect).open(base_url + "/p/" + page["id"], order)
        sys.exit("the order was not sent on to its payment page")
    except urllib.error.HTTPError as answer:
        check(answer.code == 303, "an order on the page goes on to its payment page")
        intent_id = answer.headers["Location"].removeprefix("/o/").split("_secret_")[0]
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    paid = client.payment_intents.attach(intent_id, {"payment_method": {"type": "card", "card": card}})
    check(paid.status == "succeeded" and paid.amount == 50000, "the order's intent is paid through the client")
    payment = client.payments.retrieve(paid.latest_payment["id"])
    session = payment.page_session
    check(session["custom_fields"] == [{"id": size, "name": "Size", "value": "M"}], "page_session's answers")
    line = session["line_items"][0]
    check(
        (line["price_id"], line["quantity"], line["price_amount"], line["total_amount"], line["product_name"])
        == (price["id"], 2, 25000, 50000, "Mug"),
        "page_session's line: quantity × price amount",
    )
    for _ in range(100):
        if Receiver.received:
            break
        time.sleep(0.1)
    server.shutdown()
    client.webhooks.delete(webhook.id)
    payload, headers = Receiver.received.pop(0)
    Receiver.received.clear()
    event = client.webhooks.parse_event(payload, headers["payrex-signature"], webhook.secret_key)
    check(
        event.type == "payment.paid" and PaymentEntity(ApiResource(event.data)).page_session == session,
        "payment.paid, parsed by the client, carries page_session",
    )


def check_console(client, base_url, secret_key):
    """The README's flow: a payment made through the client is found in the console by its metadata,
    refunded there, and every request that did it is in the request log."""
    order = f"CI-{secrets.token_hex(4)}"
    intent = client.payment_intents.create(
        {"amount": 25000, "currency": "PHP", "payment_methods": ["card"], "metadata": {"order": order}}
    )
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    paid = client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": card}})
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with browser.open(base_url + "/dashboard/sign_in") as page:
        token = re.search(r'name="form_token" value="([^"]+)"', page.read().decode()).group(1)
    fields = urllib.parse.urlencode({"form_token": token, "key": secret_key}).encode()
    with browser.open(base_url + "/dashboard/sign_in", fields) as answer:
        overview = answer.read().decode()
    check("TEST MODE" in overview and answer.url.endswith("/dashboard"), "the console opens with the secret key")
    with browser.open(base_url + "/dashboard/payment_intents?q=" + order) as answer:
        found = answer.read().decode()
    check(intent.id in found and found.count("/dashboard/payment_intents/pi_") == 1, "the payment is found by metadata")
    with browser.open(base_url + f"/dashboard/payment_intents/{intent.id}") as answer:
        page = answer.read().decode()
    token = re.search(r'name="form_token" value="([^"]+)"', page).group(1)
    refund = {"form_token": token, "payment_id": paid.latest_payment["id"], "currency": "PHP", "amount": "5000",
              "reason": "others"}
    with browser.open(base_url + f"/dashboard/payment_intents/{intent.id}/refund", urllib.parse.urlencode(refund).encode()) as answer:
        check("Refund created" in answer.read().decode(), "it is refunded from the console")
    payment = client.payments.retrieve(paid.latest_payment["id"])
    check(payment.amount_refunded == 5000, "once, through the service the API uses")
    logged = urllib.request.Request(base_url + f"/request_logs?object_id={intent.id}&limit=100")
    logged.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
    for _ in range(50):
        with urllib.request.urlopen(logged) as answer:
            entries = json.load(answer)["data"]
        if len(entries) >= 3:
            break
        time.sleep(0.1)
    sources = sorted({entry["source"] for entry in entries})
    check(sources == ["api", "dashboard"] and len(entries) >= 3, "the request log holds the client's requests and the console's")
    check(all("4242424242424242" not in str(entry) for entry in entries), "without the card number")


class Receiver(BaseHTTPRequestHandler):
    """A merchant's webhook endpoint on loopback: keeps each delivery's body and headers."""

    received = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"])).decode()
        Receiver.received.append((body, {name.lower(): value for name, value in self.headers.items()}))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def check_secret_rotation(client, base_url, secret_key):
    """A webhook's secret rotated: PayRex's client verifies with the new secret (it reads the first
    signature), and the standardwebhooks package's verifier with either secret during the overlap."""
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    webhook = client.webhooks.create({"url": url, "events": ["payment.paid"], "description": "rotation"})
    request = urllib.request.Request(base_url + f"/webhooks/{webhook.id}/rotate_secret", data=b"", method="POST")
    request.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
    with urllib.request.urlopen(request) as answer:
        new_secret = json.load(answer)["secret_key"]
    check(new_secret != webhook.secret_key, "a webhook's secret rotates")
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    intent = client.payment_intents.create({"amount": 10000, "currency": "PHP", "payment_methods": ["card"]})
    client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": card}})
    for _ in range(100):
        if Receiver.received:
            break
        time.sleep(0.1)
    server.shutdown()
    payload, headers = Receiver.received[0]
    event = client.webhooks.parse_event(payload, headers["payrex-signature"], new_secret)
    check(event.type == "payment.paid", "payrex-python verifies a delivery with the new secret")
    try:
        client.webhooks.parse_event(payload, headers["payrex-signature"], webhook.secret_key)
    except Exception:
        check(True, "and, reading the first signature only, not with the old one")
    else:
        sys.exit("payrex-python accepted the rotated-out secret")
    for name, secret in [("new", new_secret), ("old", webhook.secret_key)]:
        # A whsk_ secret's own bytes are the key (standardwebhooks decodes a str as base64).
        verified = Webhook(secret.encode()).verify(payload, headers)
        check(verified["id"] == event.id, f"standardwebhooks verifies it with the {name} secret")
    try:
        Webhook(b"whsk_someone_else").verify(payload, headers)
    except Exception:
        check(True, "and refuses another secret")
    else:
        sys.exit("standardwebhooks accepted a secret that signed nothing")
    client.webhooks.delete(webhook.id)


def check_listen(client, base_url, secret_key):
    """The command line's first flow: `payments listen --forward-to URL` in one terminal, `payments
    trigger payment_intent.succeeded` in another, and the receiver verifies what arrives with
    payrex-python's parse_event and the secret listen printed."""
    Receiver.received = []
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    binary = os.environ.get("PAYMENTS_BIN", "target/debug/payments")
    env = dict(os.environ, PAYMENTS_API_BASE=base_url, PAYMENTS_KEY=secret_key)
    url = f"http://localhost:{server.server_address[1]}/webhooks"
    listen = subprocess.Popen([binary, "listen", "--json", "--forward-to", url], env=env, stdout=subprocess.PIPE, text=True)
    try:
        secret = json.loads(listen.stdout.readline())["secret"]
        triggered = subprocess.run([binary, "trigger", "payment_intent.succeeded", "--json"], env=env,
                                   capture_output=True, text=True, check=True)
        made = [json.loads(line) for line in triggered.stdout.splitlines()]
        event_id = next(line["id"] for line in made if line["type"] == "event")
        for _ in range(100):
            if len(Receiver.received) >= 2:
                break
            time.sleep(0.1)
    finally:
        listen.terminate()
        listen.wait()
        server.shutdown()
    events = {client.webhooks.parse_event(payload, headers["payrex-signature"], secret).id: headers
              for payload, headers in Receiver.received}
    check(event_id in events, "payrex-python verifies the event payments trigger made, as payments listen forwarded it")
    check(all(Webhook(secret.encode()).verify(payload, headers) for payload, headers in Receiver.received),
          "and so does standardwebhooks")


def check_test_clock(client, base_url, secret_key):
    """The test clock issue's merchant CI: a session expires a day on, a statement due next week
    reminds and goes overdue twelve days on, a hold is released, and 3-D Secure finishes without a
    browser; the client reads every object back as the clock left it."""
    def call(method, path, fields=None):
        data = urllib.parse.urlencode(fields).encode() if fields is not None else None
        request = urllib.request.Request(base_url + path, data=data, method=method)
        request.add_header("Authorization", "Basic " + base64.b64encode(f"{secret_key}:".encode()).decode())
        with urllib.request.urlopen(request) as answer:
            return json.load(answer)

    def types_of(event_type):
        return [e["created_at"] for e in reversed(call("GET", f"/events?limit=100&type={event_type}")["data"])]

    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    session = client.checkout_sessions.create(
        {
            "line_items": [{"name": "Mug", "amount": 150000, "quantity": 1}],
            "success_url": "https://shop.example/done",
            "cancel_url": "https://shop.example/cart",
            "payment_methods": ["card"],
        }
    )
    held = client.payment_intents.create(
        {"amount": 10000, "currency": "PHP", "payment_methods": ["card"],
         "payment_method_options": {"card": {"capture_type": "manual"}}}
    )
    held = client.payment_intents.attach(held.id, {"payment_method": {"type": "card", "card": card}})
    check(held.status == "awaiting_capture", "a card is held")
    moved = call("POST", "/test_helpers/clock/advance", {"seconds": 24 * 60 * 60})
    check(moved["resource"] == "test_clock" and moved["seconds_ahead"] >= 86400, "the test clock moves a day")
    expired = client.checkout_sessions.retrieve(session.id)
    check(expired.status == "expired" and expired.payment_intent["status"] == "canceled", "the session expired")
    check(types_of("checkout_session.expired")[-1] == session.expires_at, "checkout_session.expired at expires_at")

    now = call("GET", "/test_helpers/clock")["now"]
    customer = client.customers.create({"name": "Tess", "email": "tess@example.com", "currency": "PHP"})
    check(abs(customer.created_at - now) <= 5, "a new object takes the clock's time")
    statement = client.billing_statements.create({"customer_id": customer.id, "due_at": now + 7 * 86400})
    client.billing_statement_line_items.create(
        {"billing_statement_id": statement.id, "description": "Plan", "unit_price": 5000, "quantity": 1}
    )
    client.billing_statements.finalize(statement.id)
    call("POST", "/test_helpers/clock/advance", {"seconds": 12 * 86400})
    check(types_of("billing_statement.will_be_due")[-1] == now + 2 * 86400, "will_be_due five days before due_at")
    check(types_of("billing_statement.overdue")[-1] == now + 12 * 86400, "then overdue five days after")
    released = client.payment_intents.retrieve(held.id)
    check(released.status == "canceled" and released.amount_capturable == 0, "the hold was released")

    challenged = client.payment_intents.create({"amount": 10000, "currency": "PHP", "payment_methods": ["card"]})
    challenged = client.payment_intents.attach(
        challenged.id, {"payment_method": {"type": "card", "card": dict(card, number="4000000000003220")}}
    )
    check(challenged.status == "awaiting_next_action", "a 3-D Secure card waits for the customer")
    call("POST", f"/test_helpers/payment_intents/{challenged.id}/complete_redirect", {"outcome": "approved"})
    check(client.payment_intents.retrieve(challenged.id).status == "succeeded", "and succeeds without a browser")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
