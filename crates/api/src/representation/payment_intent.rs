//! A payment intent as the API shows it: whole to a secret key, and only what a browser needs to a
//! public key with the client secret.

use super::customer::CustomerResource;
use super::payment::PaymentResource;
use payments_application::services::PaymentIntentView;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::metadata::Metadata;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::{CardOptions, PaymentError, PaymentIntent, PaymentIntentStatus};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::statement_descriptor::StatementDescriptor;
use payments_domain::time::Timestamp;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "payment_intent";

/// `{"type": "redirect", "redirect_url": …}` while the customer must authenticate.
#[derive(Serialize, ToSchema)]
#[schema(as = NextAction)]
pub(super) struct NextAction<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    redirect_url: &'a str,
}

impl<'a> NextAction<'a> {
    pub(super) fn redirect(redirect_url: &'a str) -> Self {
        Self { kind: "redirect", redirect_url }
    }
}

fn next_action(intent: &PaymentIntent) -> Option<NextAction<'_>> {
    match intent.status() {
        PaymentIntentStatus::AwaitingNextAction => {
            intent.pending().as_ref().and_then(|pending| pending.redirect_url.as_deref()).map(NextAction::redirect)
        }
        PaymentIntentStatus::AwaitingPaymentMethod
        | PaymentIntentStatus::Processing
        | PaymentIntentStatus::AwaitingCapture
        | PaymentIntentStatus::Succeeded
        | PaymentIntentStatus::Canceled => None,
    }
}

#[derive(Serialize, ToSchema)]
#[schema(as = PaymentMethodOptions)]
pub(super) struct PaymentMethodOptions<'a> {
    pub(super) card: &'a CardOptions,
}

/// A payment intent as the API shows it to a secret key.
#[derive(Serialize, ToSchema)]
#[schema(as = PaymentIntent)]
pub(crate) struct PaymentIntentResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    amount_received: i64,
    amount_capturable: i64,
    client_secret: &'a str,
    currency: &'static str,
    description: Option<&'a str>,
    last_payment_error: Option<&'a PaymentError>,
    latest_payment: Option<PaymentResource<'a>>,
    livemode: bool,
    metadata: Option<&'a Metadata>,
    next_action: Option<NextAction<'a>>,
    payment_method_id: Option<&'a str>,
    payment_methods: &'a [PaymentMethodType],
    payment_method_options: PaymentMethodOptions<'a>,
    statement_descriptor: Option<&'a str>,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    return_url: Option<&'a str>,
    capture_before_at: Option<i64>,
    customer: Option<CustomerResource<'a>>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PaymentIntentResource<'a> {
    pub(crate) fn new(view: &'a PaymentIntentView) -> Self {
        Self::from_parts(&view.intent, view.latest_payment.as_ref(), view.customer.as_ref())
    }

    pub(crate) fn from_parts(
        intent: &'a PaymentIntent,
        latest_payment: Option<&'a Payment>,
        customer: Option<&'a Customer>,
    ) -> Self {
        Self {
            id: intent.id().as_str(),
            resource: RESOURCE,
            amount: intent.amount().centavos(),
            amount_received: intent.amount_received(),
            amount_capturable: intent.amount_capturable(),
            client_secret: intent.client_secret().reveal(),
            currency: intent.currency().code(),
            description: intent.description().map(Description::as_str),
            last_payment_error: intent.last_payment_error(),
            latest_payment: latest_payment.map(|payment| PaymentResource::new(payment, customer)),
            livemode: intent.livemode(),
            metadata: intent.metadata(),
            next_action: next_action(intent),
            payment_method_id: intent.payment_method_id(),
            payment_methods: intent.payment_methods(),
            payment_method_options: PaymentMethodOptions { card: intent.card_options() },
            statement_descriptor: intent.statement_descriptor().map(StatementDescriptor::as_str),
            status: intent.status().as_str(),
            return_url: intent.return_url(),
            capture_before_at: intent.capture_before_at().map(Timestamp::unix_seconds),
            customer: customer.map(CustomerResource::from),
            created_at: intent.created_at().unix_seconds(),
            updated_at: intent.updated_at().unix_seconds(),
        }
    }
}

/// What a browser holding the client secret needs to finish a payment, and nothing more.
#[derive(Serialize, ToSchema)]
#[schema(as = PublicPaymentIntent)]
pub(crate) struct PublicPaymentIntentResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    currency: &'static str,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    client_secret: &'a str,
    next_action: Option<NextAction<'a>>,
    last_payment_error: Option<&'a PaymentError>,
    payment_methods: &'a [PaymentMethodType],
    payment_method_options: PaymentMethodOptions<'a>,
    livemode: bool,
    return_url: Option<&'a str>,
}

impl<'a> PublicPaymentIntentResource<'a> {
    pub(crate) fn new(intent: &'a PaymentIntent) -> Self {
        Self {
            id: intent.id().as_str(),
            resource: RESOURCE,
            amount: intent.amount().centavos(),
            currency: intent.currency().code(),
            status: intent.status().as_str(),
            client_secret: intent.client_secret().reveal(),
            next_action: next_action(intent),
            last_payment_error: intent.last_payment_error(),
            payment_methods: intent.payment_methods(),
            payment_method_options: PaymentMethodOptions { card: intent.card_options() },
            livemode: intent.livemode(),
            return_url: intent.return_url(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&PaymentIntentStatus::ALL, PaymentIntentStatus::as_str))
}
