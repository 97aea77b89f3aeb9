"""Verifies a webhook delivery received by the test suite with PayRex's official Python library,
as a merchant's server would: `client.webhooks.parse_event(payload, signature_header, secret_key)`.

Usage: verify_webhook.py target/webhook-sample.json
"""
import json
import sys

from payrex import Client


def main(path):
    with open(path, encoding="utf-8") as sample_file:
        sample = json.load(sample_file)
    client = Client("sk_test_unused_for_signature_checks")
    event = client.webhooks.parse_event(sample["payload"], sample["signature"], sample["secret_key"])
    print(f"payrex-python verified event {event.id} ({event.type})")

    tampered = sample["payload"].replace('"livemode":false', '"livemode":true')
    try:
        client.webhooks.parse_event(tampered, sample["signature"], sample["secret_key"])
    except Exception as error:  # the library raises SignatureInvalidException
        print(f"payrex-python refused a tampered payload: {type(error).__name__}")
    else:
        sys.exit("a tampered payload was accepted")


if __name__ == "__main__":
    main(sys.argv[1])
