"""A CI job's throwaway account, as docs/operations.md#a-throwaway-account-per-test-run tells a
merchant to run one: the operator API creates an account, `payments fixtures` seeds it from the docs'
file, PayRex's official Python client runs a small suite on it, and the account is deleted at the end.
On the way, its test data is exported, the account deleted, and the export imported into a fresh
account, which the client then reads the very same objects from (ids kept).

Usage: throwaway_account.py BASE_URL OPERATOR_TOKEN
"""
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request

from payrex import AuthenticationInvalidException, Client


def check(condition, message):
    if not condition:
        print(f"FAILED: {message}", file=sys.stderr)
        sys.exit(1)
    print(f"ok: {message}")


def operator(base_url, token, method, path, body=None, content_type="application/json"):
    """An operator API call: (status, body as text)."""
    request = urllib.request.Request(f"{base_url}/operator/accounts{path}", method=method, data=body)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def client_for(base_url, account):
    client = Client(account["test"]["secret_key"])
    client.config.api_base_url = base_url
    return client


def read_back(client, made):
    """Every object the suite made, as the client reads it."""
    services = {
        "customer": client.customers,
        "payment_intent": client.payment_intents,
        "payment": client.payments,
        "checkout_session": client.checkout_sessions,
        "billing_statement": client.billing_statements,
    }
    return {object_id: vars(services[kind].retrieve(object_id)) for kind, object_id in made}


def main(base_url, token):
    base_url = base_url.rstrip("/")
    status, _ = operator(base_url, None, "GET", "")
    check(status == 401, "the operator API refuses a call without its token")
    status, _ = operator(base_url, "not-the-token", "GET", "")
    check(status == 401, "and one with a wrong token")

    status, text = operator(base_url, token, "POST", "", json.dumps({"name": "CI run"}).encode())
    # (Its keys are not printed: a CI log is read by more people than its secrets are.)
    check(status == 200, "a throwaway account is created" + ("" if status == 200 else f" ({status} {text[:200]})"))
    account = json.loads(text)

    binary = os.environ.get("PAYMENTS_BIN", "target/debug/payments")
    env = dict(os.environ, PAYMENTS_API_BASE=base_url, PAYMENTS_KEY=account["test"]["secret_key"])
    seeded = subprocess.run([binary, "fixtures", "docs/fixtures/seed.json", "--json"], env=env,
                            capture_output=True, text=True, check=True)
    answers = [line["answer"] for line in map(json.loads, seeded.stdout.splitlines())]
    made = list(dict.fromkeys((answer["resource"], answer["id"]) for answer in answers
                              if answer["resource"] in ("customer", "checkout_session", "billing_statement")))
    check(len(made) >= 3, "payments fixtures seeds it from the docs' file")

    client = client_for(base_url, account)
    intent = client.payment_intents.create({"amount": 25000, "currency": "PHP", "payment_methods": ["card"]})
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2035, "cvc": "123"}
    paid = client.payment_intents.attach(intent.id, {"payment_method": {"type": "card", "card": card}})
    refund = client.refunds.create({"payment_id": paid.latest_payment["id"], "amount": 5000, "currency": "PHP", "reason": "others"})
    check(refund.status == "succeeded", "the suite pays an intent and refunds part of it")
    # (The client cannot retrieve a refund: the payment shows it.)
    made += [("payment_intent", intent.id), ("payment", paid.latest_payment["id"])]
    before = read_back(client, made)

    status, export = operator(base_url, token, "GET", f"/{account['id']}/test_data")
    check(status == 200 and len(export.splitlines()) > len(made), "its test data is exported as JSON lines")
    status, _ = operator(base_url, token, "DELETE", f"/{account['id']}")
    check(status == 200, "the account is deleted")
    try:
        client.customers.retrieve(made[0][1])
        check(False, "a deleted account's key is refused")
    except AuthenticationInvalidException:
        check(True, "a deleted account's key is refused")

    # Named as the first: statements show the merchant's name.
    status, text = operator(base_url, token, "POST", "", json.dumps({"name": "CI run"}).encode())
    fresh = json.loads(text)
    status, text = operator(base_url, token, "POST", f"/{fresh['id']}/test_data", export.encode(),
                            "application/x-ndjson")
    check(status == 200, f"the export imports into a fresh account ({status} {text[:300]})")
    after = read_back(client_for(base_url, fresh), made)
    for object_id, fields in before.items():
        differing = {name: (value, after[object_id].get(name)) for name, value in fields.items()
                     if after[object_id].get(name) != value}
        check(not differing, f"payrex-python reads {object_id} back the same from the fresh account"
              + (f": {differing}" if differing else ""))

    status, _ = operator(base_url, token, "DELETE", f"/{fresh['id']}")
    check(status == 200, "and the fresh account is deleted at the end of the run")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
