"""A client generated from the service's /openapi.json by openapi-python-client creates a customer
and a payment intent for it, pays nothing, and reads both back, with the generated models.

Usage: generated_client.py BASE_URL SECRET_KEY (the package `payments_api_client` installed).
"""

import sys

from payments_api_client import AuthenticatedClient
from payments_api_client.api.customers import create_customer, retrieve_customer
from payments_api_client.api.payment_intents import create_payment_intent, retrieve_payment_intent
from payments_api_client.models import (
    CreateCustomerRequest,
    CreateCustomerRequestCurrency,
    CreatePaymentIntentRequest,
    CreatePaymentIntentRequestCurrency,
    CreatePaymentIntentRequestPaymentMethodsType0Item,
    Customer,
    Error,
    PaymentIntent,
)


def main(base_url: str, secret_key: str) -> None:
    client = AuthenticatedClient(base_url=base_url, token=secret_key, raise_on_unexpected_status=True)

    body = CreateCustomerRequest(
        name="Generated Client", email="generated@example.com", currency=CreateCustomerRequestCurrency.PHP
    )
    customer = create_customer.sync(client=client, body=body)
    assert isinstance(customer, Customer), customer
    assert customer.id.startswith("cus_") and customer.name == "Generated Client", customer

    # The form encoding, as PayRex's own clients send it.
    intent_body = CreatePaymentIntentRequest(
        amount=10_000,
        currency=CreatePaymentIntentRequestCurrency.PHP,
        payment_methods=[CreatePaymentIntentRequestPaymentMethodsType0Item.CARD],
        customer_id=customer.id,
    )
    intent = create_payment_intent.sync(client=client, body=intent_body, idempotency_key=f"generated-{customer.id}")
    assert isinstance(intent, PaymentIntent), intent
    assert intent.id.startswith("pi_") and intent.amount == 10_000, intent
    assert intent.status == "awaiting_payment_method", intent.status

    again = retrieve_payment_intent.sync(client=client, id=intent.id)
    assert isinstance(again, PaymentIntent) and again.id == intent.id, again
    assert retrieve_customer.sync(client=client, id=customer.id).id == customer.id

    refused = create_customer.sync(
        client=client,
        body=CreateCustomerRequest(name="x" * 256, email="e@example.com", currency=CreateCustomerRequestCurrency.PHP),
    )
    assert isinstance(refused, Error), refused
    assert refused.errors[0].code == "parameter_invalid" and refused.errors[0].parameter == "name", refused
    print(f"generated client: customer {customer.id}, payment intent {intent.id}, a bad name refused")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
