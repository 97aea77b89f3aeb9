//! A setup intent as the API shows it: whole to a secret key (the seed's table, with the customer
//! embedded), and only what a browser needs to a public key with the client secret.

use super::customer::CustomerResource;
use super::payment_intent::{NextAction, PaymentMethodOptions};
use payments_application::services::SetupIntentView;
use payments_domain::customer::Customer;
use payments_domain::description::Description;
use payments_domain::ids::PaymentMethodId;
use payments_domain::metadata::Metadata;
use payments_domain::payment_intent::PaymentError;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::setup_intent::SetupIntent;
use payments_domain::setup_intent::SetupIntentStatus;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "setup_intent";

/// A setup intent as the API shows it to a secret key.
#[derive(Serialize, ToSchema)]
#[schema(as = SetupIntent)]
pub(crate) struct SetupIntentResource<'a> {
    id: &'a str,
    resource: &'static str,
    client_secret: &'a str,
    customer: CustomerResource<'a>,
    description: Option<&'a str>,
    last_setup_error: Option<&'a PaymentError>,
    livemode: bool,
    metadata: Option<&'a Metadata>,
    next_action: Option<NextAction<'a>>,
    payment_method_id: Option<&'a str>,
    payment_methods: &'a [PaymentMethodType],
    payment_method_options: PaymentMethodOptions<'a>,
    return_url: Option<&'a str>,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    usage: &'static str,
    created_at: i64,
    updated_at: i64,
}

impl<'a> SetupIntentResource<'a> {
    pub(crate) fn new(view: &'a SetupIntentView) -> Self {
        Self::from_parts(&view.intent, &view.customer)
    }

    pub(crate) fn from_parts(intent: &'a SetupIntent, customer: &'a Customer) -> Self {
        Self {
            id: intent.id().as_str(),
            resource: RESOURCE,
            client_secret: intent.client_secret().reveal(),
            customer: CustomerResource::from(customer),
            description: intent.description().map(Description::as_str),
            last_setup_error: intent.last_setup_error(),
            livemode: intent.livemode(),
            metadata: intent.metadata(),
            next_action: intent.next_action_url().map(NextAction::redirect),
            payment_method_id: intent.payment_method_id().map(PaymentMethodId::as_str),
            payment_methods: intent.payment_methods(),
            payment_method_options: PaymentMethodOptions { card: intent.card_options() },
            return_url: intent.return_url(),
            status: intent.status().as_str(),
            usage: intent.usage().as_str(),
            created_at: intent.created_at().unix_seconds(),
            updated_at: intent.updated_at().unix_seconds(),
        }
    }
}

/// What a browser holding the client secret needs to save a card, and nothing more.
#[derive(Serialize, ToSchema)]
#[schema(as = PublicSetupIntent)]
pub(crate) struct PublicSetupIntentResource<'a> {
    id: &'a str,
    resource: &'static str,
    client_secret: &'a str,
    last_setup_error: Option<&'a PaymentError>,
    livemode: bool,
    next_action: Option<NextAction<'a>>,
    payment_methods: &'a [PaymentMethodType],
    payment_method_options: PaymentMethodOptions<'a>,
    return_url: Option<&'a str>,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    usage: &'static str,
}

impl<'a> PublicSetupIntentResource<'a> {
    pub(crate) fn new(intent: &'a SetupIntent) -> Self {
        Self {
            id: intent.id().as_str(),
            resource: RESOURCE,
            client_secret: intent.client_secret().reveal(),
            last_setup_error: intent.last_setup_error(),
            livemode: intent.livemode(),
            next_action: intent.next_action_url().map(NextAction::redirect),
            payment_methods: intent.payment_methods(),
            payment_method_options: PaymentMethodOptions { card: intent.card_options() },
            return_url: intent.return_url(),
            status: intent.status().as_str(),
            usage: intent.usage().as_str(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&SetupIntentStatus::ALL, SetupIntentStatus::as_str))
}
