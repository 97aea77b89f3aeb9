"""Drives a running service's live mode with PayRex's official Python client, unchanged but for its
base URL, as a merchant's backend would, with the account's Stripe-API processor at localstripe.
A card is a payment method made at the processor (as the browser makes it); the service sees only
its id. Fails (exit status 1) on the first answer that is not what the client needs, or that the
processor did not do.

Usage: payrex_live.py BASE_URL LIVE_SECRET_KEY PROCESSOR_URL PROCESSOR_SECRET_KEY
"""
import base64
import json
import sys
import urllib.parse
import urllib.request

from payrex import Client
from payrex import RequestInvalidException


def check(condition, message):
    if not condition:
        sys.exit(f"payrex-python live check failed: {message}")
    print(f"ok: {message}")


def processor(processor_url, key, method, path, fields=None):
    data = urllib.parse.urlencode(fields).encode() if fields is not None else None
    request = urllib.request.Request(processor_url + path, data=data, method=method)
    request.add_header("Authorization", "Basic " + base64.b64encode((key + ":").encode()).decode())
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def main(base_url, live_key, processor_url, processor_key):
    client = Client(live_key)
    client.config.api_base_url = base_url.rstrip("/")

    def card():
        made = processor(processor_url, processor_key, "POST", "/v1/payment_methods", {
            "type": "card", "card[number]": "4242424242424242", "card[exp_month]": "12",
            "card[exp_year]": "2035", "card[cvc]": "123"})
        return {"payment_method": {"type": "card", "card": {"token": made["id"]}}}

    def at_processor(payment_id):
        intents = processor(processor_url, processor_key, "GET", "/v1/payment_intents?limit=100")["data"]
        return [intent for intent in intents if intent["metadata"].get("payrex_payment") == payment_id]

    intent = client.payment_intents.create({"amount": 10000, "currency": "PHP", "payment_methods": ["card"]})
    check(intent.livemode and intent.status == "awaiting_payment_method", "a live payment intent is created")
    try:
        client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": {
            "number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}}})
        check(False, "a live card number is refused")
    except RequestInvalidException as refused:
        detail = " ".join(error.detail or "" for error in refused.errors)
        check("never reach" in detail, "a live card number is refused, and why")
    paid = client.payment_intents.attach(intent.id, card())
    payment = paid.latest_payment
    check(paid.status == "succeeded" and payment["status"] == "paid", "a live card token pays through attach")
    made = at_processor(payment["id"])
    check(len(made) == 1 and made[0]["status"] == "succeeded", "the processor charged it once")

    for amount in (3000, 4000):
        refund = client.refunds.create(
            {"payment_id": payment["id"], "amount": amount, "currency": "PHP", "reason": "others"})
        check(refund.status == "succeeded" and refund.amount == amount, f"a live refund of {amount} succeeds")
    try:
        client.refunds.create({"payment_id": payment["id"], "amount": 3001, "currency": "PHP", "reason": "others"})
        check(False, "a refund above what is left is refused")
    except RequestInvalidException:
        check(True, "a refund above what is left is refused")
    charge = at_processor(payment["id"])[0]["charges"]["data"][0]
    check(charge["amount_refunded"] == 7000, "the processor refunded 7000")

    manual = {"amount": 10000, "currency": "PHP", "payment_methods": ["card"],
              "payment_method_options": {"card": {"capture_type": "manual"}}}
    held = client.payment_intents.attach(client.payment_intents.create(manual).id, card())
    check(held.status == "awaiting_capture", "a live card is held")
    captured = client.payment_intents.capture(held.id, {"amount": 6000})
    check(captured.status == "succeeded" and captured.amount_received == 6000, "6000 of the hold is captured")
    released = client.payment_intents.attach(client.payment_intents.create(manual).id, card())
    canceled = client.payment_intents.cancel(released.id)
    check(canceled.status == "canceled", "another hold is canceled")
    statuses = [intent["status"] for intent in processor(
        processor_url, processor_key, "GET", "/v1/payment_intents?limit=100")["data"]]
    check(statuses.count("canceled") == 1, "and voided at the processor")
    check(client.payment_intents.retrieve(captured.id).amount_received == 6000, "the capture is retrieved")


if __name__ == "__main__":
    main(*sys.argv[1:5])
