"""Sets an account's live processor through the operator API: a Stripe-API processor at
PROCESSOR_URL with the secret key PROCESSOR_SECRET_KEY (an emulator's, in CI).

Usage: set_connector.py BASE_URL OPERATOR_TOKEN ACCOUNT_JSON PROCESSOR_URL PROCESSOR_SECRET_KEY
"""
import json
import sys
import urllib.request


def main(base_url, token, account_file, processor_url, processor_key):
    account = json.load(open(account_file))["id"]
    setup = {"kind": "stripe", "api_base_url": processor_url, "publishable_key": "pk_test_ci",
             "secret_key": processor_key, "webhook_secret": "whsec_ci"}
    request = urllib.request.Request(f"{base_url.rstrip('/')}/operator/accounts/{account}/connector",
                                     data=json.dumps(setup).encode(), method="PUT",
                                     headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        connector = json.loads(response.read())
    if connector.get("secret_key") != "sealed":
        sys.exit(f"the connector was not set: {connector}")
    print(f"ok: the account's live processor is set ({connector['id']})")


if __name__ == "__main__":
    main(*sys.argv[1:6])
