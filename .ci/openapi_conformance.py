"""Every operation of /openapi.json, called with real data through a whole flow, answers what the
document says: each answer's status is documented for its operation and its body validates against
the documented schema (JSON Schema 2020-12, refs resolved in the document, and no field the
document does not list). Ends by checking that
every documented operation answered 200 at least once, so no success schema goes untested.

schemathesis fuzzes the same document, but with random ids it mostly meets 404s; this walks the
paths that need real objects (a capture, a refund, a finalized statement, a resent event).

Usage: openapi_conformance.py BASE_URL SECRET_KEY PUBLIC_KEY PAYOUTS_SECRET_KEY (another account's, whose clock moves)
"""

import copy
import json
import sys
import time

import jsonschema
import requests

METHODS = ("get", "post", "put", "delete")


def closed(value):
    """The schemas with every object closed to properties it does not list, so that an answer with an
    undocumented field fails here (the document itself leaves them open, for clients to tolerate new
    fields)."""
    if isinstance(value, dict):
        if "properties" in value and "additionalProperties" not in value:
            value["additionalProperties"] = False
        for inner in value.values():
            closed(inner)
    elif isinstance(value, list):
        for inner in value:
            closed(inner)
    return value


class Api:
    def __init__(self, base_url, secret_key, public_key):
        self.base_url = base_url.rstrip("/")
        self.secret_key = secret_key
        self.public_key = public_key
        self.document = requests.get(f"{self.base_url}/openapi.json", timeout=10).json()
        self.components = closed(copy.deepcopy(self.document["components"]))
        self.succeeded = set()
        self.checked = 0

    def operation(self, method, template):
        return self.document["paths"][template][method]

    def call(self, method, template, *, params=None, form=None, json=None, key=None, status=200, **path):
        """Calls `method template` with `path` filled in, checks the answer against the document and
        returns its JSON body."""
        url = self.base_url + template.format(**path)
        auth = (key or self.secret_key, "")
        response = requests.request(method.upper(), url, params=params, data=form, json=json, auth=auth, timeout=30)
        operation = self.operation(method, template)
        where = f"{method.upper()} {url}"
        assert response.status_code == status, f"{where}: {response.status_code} {response.text[:500]}"
        documented = operation["responses"].get(str(response.status_code))
        assert documented, f"{where}: status {response.status_code} is not documented"
        assert response.headers["content-type"].startswith("application/json"), where
        schema = dict(documented["content"]["application/json"]["schema"], components=self.components)
        body = response.json()
        errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(body), key=str)
        assert not errors, f"{where}: the answer does not match the document: {errors[0].message} at {list(errors[0].absolute_path)}"
        self.checked += 1
        if response.status_code == 200:
            self.succeeded.add(operation["operationId"])
        return body

    def stream_after(self, last_event_id, expect):
        """Reads `GET /events/stream` from after `last_event_id` up to the event `expect`: it opens
        with `stream_start` naming that id, each message matches the documented message schema, and
        each event's `data` matches the Event schema and carries its `id` and `event` (type)."""
        operation = self.operation("get", "/events/stream")
        documented = operation["responses"]["200"]["content"]
        assert "text/event-stream" in documented, "the stream's answer is documented as text/event-stream"
        schema = dict(documented["text/event-stream"]["schema"], components=self.components)
        item = dict(self.components["schemas"]["Event"], components=self.components)
        headers = {"Last-Event-ID": last_event_id}
        with requests.get(f"{self.base_url}/events/stream", auth=(self.secret_key, ""), headers=headers,
                          stream=True, timeout=10) as response:
            assert response.status_code == 200, response.text[:500]
            assert response.headers["content-type"].startswith("text/event-stream")
            fields = {}
            for line in response.iter_lines(decode_unicode=True):
                if line:
                    name, _, value = line.partition(": ")
                    fields[name] = value
                    continue
                if "data" not in fields:
                    fields = {}
                    continue
                # The document describes each message as a client reads it: event, id, data, retry.
                message = {name: int(value) if name == "retry" else value for name, value in fields.items()}
                errors = list(jsonschema.Draft202012Validator(schema).iter_errors(message))
                assert not errors, f"a streamed message does not match the document: {errors[0].message}"
                if fields.get("event") == "stream_start":
                    # Where the stream starts: its id is what it resumes after.
                    assert json.loads(fields["data"])["resumes_after"] == fields["id"], fields
                    fields = {}
                    continue
                body = json.loads(fields["data"])
                errors = list(jsonschema.Draft202012Validator(item).iter_errors(body))
                assert not errors, f"a streamed event does not match the document: {errors[0].message}"
                assert (fields["id"], fields["event"]) == (body["id"], body["type"]), fields
                self.checked += 1
                if body["id"] == expect:
                    self.succeeded.add(operation["operationId"])
                    return
                fields = {}
        raise AssertionError(f"the stream ended before {expect}")

    def uncovered(self):
        every = {
            item[method]["operationId"]
            for item in self.document["paths"].values()
            for method in METHODS
            if method in item
        }
        return sorted(every - self.succeeded)


CARD = {
    "payment_method[type]": "card",
    "payment_method[card][number]": "4242424242424242",
    "payment_method[card][exp_month]": "12",
    "payment_method[card][exp_year]": "2035",
    "payment_method[card][cvc]": "123",
}


def payments(api):
    customer = api.call("post", "/customers", form={"name": "Ana Cruz", "email": "ana@example.com", "currency": "PHP",
                                                   "billing[address][country]": "PH", "metadata[tier]": "gold"})
    api.call("get", "/customers", params={"limit": 5, "metadata[tier]": "gold"})
    api.call("get", "/customers/{id}", id=customer["id"])
    api.call("put", "/customers/{id}", form={"name": "Ana M. Cruz"}, id=customer["id"])

    held = api.call("post", "/payment_intents", form={
        "amount": 50000, "currency": "PHP", "payment_methods[]": "card", "customer_id": customer["id"],
        "payment_method_options[card][capture_type]": "manual", "description": "Order 1"})
    api.call("put", "/payment_intents/{id}", form={"metadata[order]": "1"}, id=held["id"])
    api.call("get", "/payment_intents/{id}", params={"client_secret": held["client_secret"]}, key=api.public_key,
             id=held["id"])
    declined = dict(CARD, **{"payment_method[card][number]": "4000000000000077"})
    api.call("post", "/payment_intents/{id}/attach", form=declined, status=400, id=held["id"])
    api.call("post", "/payment_intents/{id}/attach", form=CARD, id=held["id"])
    captured = api.call("post", "/payment_intents/{id}/capture", form={"amount": 40000}, id=held["id"])
    payment_id = captured["latest_payment"]["id"]
    api.call("get", "/payments/{id}", id=payment_id)
    api.call("put", "/payments/{id}", form={"description": "Captured in part"}, id=payment_id)
    refund = api.call("post", "/refunds", form={"amount": 1000, "currency": "PHP", "payment_id": payment_id,
                                                "reason": "requested_by_customer"})
    api.call("put", "/refunds/{id}", form={"metadata[ticket]": "7"}, id=refund["id"])
    canceled = api.call("post", "/payment_intents", json={"amount": 2000, "currency": "PHP", "payment_methods": ["gcash"]})
    api.call("post", "/payment_intents/{id}/cancel", id=canceled["id"])

    setup = api.call("post", "/setup_intents", form={"customer_id": customer["id"], "payment_methods[]": "card"})
    api.call("get", "/setup_intents/{id}", id=setup["id"])
    api.call("post", "/setup_intents/{id}/attach", form=CARD, id=setup["id"])
    other_setup = api.call("post", "/setup_intents", form={"customer_id": customer["id"], "payment_methods[]": "card"})
    api.call("post", "/setup_intents/{id}/cancel", id=other_setup["id"])
    session = api.call("post", "/customer_sessions", form={
        "customer_id": customer["id"], "components[0][component]": "payment_element",
        "components[0][feature]": "payment_method_remove", "components[0][value]": "enabled"})
    api.call("get", "/customer_sessions/{id}", id=session["id"])
    saved = api.call("get", "/customers/{customer_id}/payment_methods", customer_id=customer["id"])
    api.call("post", "/customers/{customer_id}/payment_methods/{id}", form={"exp_month": "3", "exp_year": "2039"},
             customer_id=customer["id"], id=saved["data"][0]["id"])
    api.call("delete", "/customers/{customer_id}/payment_methods/{id}", customer_id=customer["id"],
             id=saved["data"][0]["id"])
    return customer


def checkout(api):
    body = {"line_items[0][name]": "Mug", "line_items[0][amount]": 45000, "line_items[0][quantity]": 2,
            "success_url": "https://shop.example.com/ok", "cancel_url": "https://shop.example.com/cart",
            "payment_methods[]": "card"}
    session = api.call("post", "/checkout_sessions", form=body)
    api.call("get", "/checkout_sessions", params={"limit": 3})
    api.call("get", "/checkout_sessions/{id}", id=session["id"])
    api.call("post", "/checkout_sessions/{id}/expire", id=session["id"])


def billing_statements(api, customer):
    due = int(time.time()) + 7 * 86400
    statement = api.call("post", "/billing_statements", form={"customer_id": customer["id"], "due_at": due,
                                                              "payment_settings[payment_methods][]": "card"})
    item = api.call("post", "/billing_statement_line_items", form={
        "billing_statement_id": statement["id"], "description": "Consulting", "unit_price": 150000, "quantity": 2})
    api.call("get", "/billing_statement_line_items/{id}", id=item["id"])
    api.call("put", "/billing_statement_line_items/{id}", form={"quantity": 3}, id=item["id"])
    spare = api.call("post", "/billing_statement_line_items", form={
        "billing_statement_id": statement["id"], "description": "Travel", "unit_price": 5000, "quantity": 1})
    api.call("delete", "/billing_statement_line_items/{id}", id=spare["id"])
    api.call("put", "/billing_statements/{id}", form={"description": "November"}, id=statement["id"])
    api.call("get", "/billing_statements", params={"customer_id": customer["id"], "status": "draft"})
    api.call("post", "/billing_statements/{id}/finalize", id=statement["id"])
    api.call("post", "/billing_statements/{id}/send", id=statement["id"])
    api.call("get", "/billing_statements/{id}", id=statement["id"])
    api.call("post", "/billing_statements/{id}/void", id=statement["id"])

    second = api.call("post", "/billing_statements", form={"customer_id": customer["id"], "due_at": due})
    api.call("post", "/billing_statement_line_items", form={
        "billing_statement_id": second["id"], "description": "Support", "unit_price": 9900, "quantity": 1})
    api.call("post", "/billing_statements/{id}/finalize", id=second["id"])
    api.call("post", "/billing_statements/{id}/mark_uncollectible", id=second["id"])
    draft = api.call("post", "/billing_statements", form={"customer_id": customer["id"]})
    api.call("delete", "/billing_statements/{id}", id=draft["id"])


def webhooks_and_events(api):
    webhook = api.call("post", "/webhooks", form={"url": "http://127.0.0.1:9/hooks", "events[]": "payment_intent.succeeded",
                                                  "description": "conformance"})
    api.call("get", "/webhooks", params={"description": "conformance"})
    api.call("get", "/webhooks/{id}", id=webhook["id"])
    api.call("put", "/webhooks/{id}", form={"events[]": ["payment_intent.succeeded", "refund.created"]}, id=webhook["id"])
    api.call("post", "/webhooks/{id}/disable", id=webhook["id"])
    api.call("post", "/webhooks/{id}/enable", id=webhook["id"])
    api.call("post", "/webhooks/{id}/rotate_secret", id=webhook["id"])
    api.call("post", "/webhooks/{id}/recover", form={"since": 0}, id=webhook["id"])
    events = api.call("get", "/events", params={"limit": 100})
    event = events["data"][0]
    api.call("get", "/events/{id}", id=event["id"])
    api.stream_after(events["data"][1]["id"], expect=event["id"])
    api.call("post", "/webhooks/{id}/resend", form={"event_id": event["id"]}, id=webhook["id"])
    api.call("get", "/webhooks/{id}/attempts", params={"limit": 5}, id=webhook["id"])
    api.call("delete", "/webhooks/{id}", id=webhook["id"])
    customer = api.call("post", "/customers", json={"name": "Temp", "email": "temp@example.com", "currency": "PHP"})
    api.call("delete", "/customers/{id}", id=customer["id"])


def request_logs(api):
    # The log is written a moment after each answer.
    for _ in range(50):
        logged = api.call("get", "/request_logs", params={"limit": 100, "method": "POST", "status": "2xx"})
        if logged["data"]:
            break
        time.sleep(0.1)
    api.call("get", "/request_logs", params={"path": "/payment_intents", "source": "api", "status": "200"})
    api.call("get", "/request_logs/{id}", id=logged["data"][0]["id"])
    api.call("get", "/request_logs/{id}", status=404, id="req_nothing_here")


def test_helpers(api, customer):
    def attached(number, path="/payment_intents", **body):
        intent = api.call("post", path, form=dict({"payment_methods[]": "card"}, **body))
        card = dict(CARD, **{"payment_method[card][number]": number})
        api.call("post", path + "/{id}/attach", form=card, id=intent["id"])
        return intent["id"]

    challenged = attached("4000000000003220", amount=3000, currency="PHP")
    api.call("post", "/test_helpers/payment_intents/{id}/complete_redirect", form={"outcome": "approved"}, id=challenged)
    processing = attached("4000000000003337", amount=3000, currency="PHP")
    api.call("post", "/test_helpers/payment_intents/{id}/finish_processing",
             form={"outcome": "declined", "decline_code": "card_declined"}, id=processing)
    setup = attached("4000000000003220", path="/setup_intents", customer_id=customer["id"])
    api.call("post", "/test_helpers/setup_intents/{id}/complete_redirect",
             form={"outcome": "declined"}, id=setup)
    processing_setup = attached("4000000000003337", path="/setup_intents", customer_id=customer["id"])
    api.call("post", "/test_helpers/setup_intents/{id}/finish_processing", form={"outcome": "approved"},
             id=processing_setup)
    clock = api.call("get", "/test_helpers/clock")
    api.call("post", "/test_helpers/clock/advance", form={"seconds": 60})
    api.call("post", "/test_helpers/clock/advance", form={"to": clock["now"]}, status=400)


def payouts(api, key):
    """A payment paid out four days on, in another account (`key`): this account's clock stays at
    real time for schemathesis' time windows."""
    intent = api.call("post", "/payment_intents", form={"amount": 10000, "currency": "PHP", "payment_methods[]": "card"},
                      key=key)
    api.call("post", "/payment_intents/{id}/attach", form=CARD, id=intent["id"], key=key)
    api.call("post", "/test_helpers/payout_schedule", form={"interval": "daily"}, key=key)
    api.call("post", "/test_helpers/clock/advance", form={"seconds": 4 * 24 * 60 * 60}, key=key)
    made = api.call("get", "/payouts", params={"limit": 5, "status": "successful"}, key=key)
    api.call("get", "/payouts/{id}", id=made["data"][0]["id"], key=key)
    api.call("get", "/payouts/{id}/transactions", params={"limit": 5}, id=made["data"][0]["id"], key=key)
    api.call("get", "/balance", key=key)


def pages(api):
    """PayRex Pages' own resources: products, prices and pages, made, read, listed and changed."""
    product = api.call("post", "/products", form={"name": "Mug", "description": "Stoneware"})
    api.call("get", "/products", params={"limit": 3})
    api.call("get", "/products/{id}", id=product["id"])
    api.call("put", "/products/{id}", form={"description": "Glazed stoneware"}, id=product["id"])
    price = api.call("post", "/prices", form={"product_id": product["id"], "amount": 25000, "description": "Each"})
    api.call("get", "/prices", params={"product_id": product["id"]})
    api.call("get", "/prices/{id}", id=price["id"])
    api.call("put", "/prices/{id}", form={"description": "One mug"}, id=price["id"])
    page = api.call("post", "/pages", json={
        "title": "Merch", "template": "storefront", "prices": [price["id"]], "payment_methods": ["card"],
        "custom_fields": [{"name": "Size", "type": "dropdown", "options": ["S", "M"], "required": True},
                          {"name": "Age", "type": "number", "minimum": 18}],
        "after_payment_redirect_url": "https://shop.example/thanks",
    })
    api.call("get", "/pages", params={"limit": 3})
    api.call("get", "/pages/{id}", id=page["id"])
    size = page["custom_fields"][0]["id"]
    api.call("post", "/test_helpers/pages/{id}/orders", id=page["id"],
             form={f"quantity[{price['id']}]": "2", f"custom_fields[{size}]": "M"})
    api.call("post", "/test_helpers/pages/{id}/orders", status=400, id=page["id"], form={f"custom_fields[{size}]": "M"})
    api.call("put", "/pages/{id}", form={"active": "false"}, id=page["id"])
    api.call("post", "/pages", json={"title": "Give", "template": "customer_chosen_amount", "minimum_amount": 5000,
                                     "maximum_amount": 50000, "payment_methods": ["card", "gcash"]})
    lone = api.call("post", "/products", form={"name": "Sticker"})
    api.call("delete", "/products/{id}", id=lone["id"])
    api.call("delete", "/products/{id}", status=400, id=product["id"])


def errors(api):
    api.call("get", "/customers/{id}", status=404, id="cus_nothing_here")
    api.call("get", "/customers", key="sk_test_not_a_key", status=401)
    api.call("post", "/customers", form={"name": "No e-mail"}, status=400)
    api.call("post", "/payment_intents", json={"amount": 1, "currency": "PHP", "payment_methods": ["card"]}, status=400)
    api.call("get", "/healthz")
    api.call("get", "/readyz")


def main(base_url, secret_key, public_key, payouts_key):
    api = Api(base_url, secret_key, public_key)
    customer = payments(api)
    checkout(api)
    billing_statements(api, customer)
    webhooks_and_events(api)
    request_logs(api)
    test_helpers(api, customer)
    payouts(api, payouts_key)
    pages(api)
    errors(api)
    uncovered = api.uncovered()
    assert not uncovered, f"operations never answered 200 here: {uncovered}"
    print(f"openapi conformance: {api.checked} answers match the document; all {len(api.succeeded)} operations answered 200")


if __name__ == "__main__":
    main(*sys.argv[1:5])
