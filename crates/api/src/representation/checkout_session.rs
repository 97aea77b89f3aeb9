//! A checkout session as the API shows it: the seed's table, with its payment intent embedded and
//! its line items in order.

use super::payment_intent::{PaymentIntentResource, PaymentMethodOptions};
use payments_application::services::CheckoutSessionView;
use payments_domain::checkout_session::CheckoutSessionStatus;
use payments_domain::checkout_session::{CheckoutSession, LineItem};
use payments_domain::description::Description;
use payments_domain::metadata::Metadata;
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::statement_descriptor::StatementDescriptor;
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "checkout_session";

#[derive(Serialize, ToSchema)]
#[schema(as = CheckoutSessionLineItem)]
struct LineItemResource<'a> {
    id: &'a str,
    resource: &'static str,
    name: &'a str,
    amount: i64,
    quantity: i64,
    description: Option<&'a str>,
    image: Option<&'a str>,
}

impl<'a> From<&'a LineItem> for LineItemResource<'a> {
    fn from(item: &'a LineItem) -> Self {
        Self {
            id: item.id.as_str(),
            resource: "checkout_session_line_item",
            name: &item.name,
            amount: item.amount,
            quantity: item.quantity,
            description: item.description.as_ref().map(Description::as_str),
            image: item.image.as_deref(),
        }
    }
}

/// A checkout session embedding `payment_intent` (its resource, or its already presented JSON).
#[derive(Serialize, ToSchema)]
#[schema(as = CheckoutSession)]
pub(crate) struct CheckoutSessionResource<'a, P> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    customer_reference_id: Option<&'a str>,
    client_secret: &'a str,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    currency: &'static str,
    line_items: Vec<LineItemResource<'a>>,
    livemode: bool,
    url: &'a str,
    payment_intent: P,
    metadata: Option<&'a Metadata>,
    success_url: &'a str,
    cancel_url: &'a str,
    payment_methods: &'a [PaymentMethodType],
    payment_method_options: PaymentMethodOptions<'a>,
    billing_details_collection: &'static str,
    description: Option<&'a str>,
    submit_type: &'static str,
    statement_descriptor: Option<&'a str>,
    expires_at: i64,
    created_at: i64,
    updated_at: i64,
}

impl<'a> CheckoutSessionResource<'a, PaymentIntentResource<'a>> {
    pub(crate) fn new(view: &'a CheckoutSessionView) -> Self {
        Self::with_intent(&view.session, PaymentIntentResource::new(&view.payment_intent))
    }
}

impl<'a, P: Serialize> CheckoutSessionResource<'a, P> {
    pub(crate) fn with_intent(session: &'a CheckoutSession, payment_intent: P) -> Self {
        let details = session.details();
        Self {
            id: session.id().as_str(),
            resource: RESOURCE,
            amount: details.amount.centavos(),
            customer_reference_id: details.customer_reference_id.as_deref(),
            client_secret: session.client_secret().reveal(),
            status: session.status().as_str(),
            currency: details.currency.code(),
            line_items: details.line_items.iter().map(LineItemResource::from).collect(),
            livemode: session.livemode(),
            url: session.url(),
            payment_intent,
            metadata: details.metadata.as_ref(),
            success_url: details.success_url.as_str(),
            cancel_url: details.cancel_url.as_str(),
            payment_methods: &details.payment_methods,
            payment_method_options: PaymentMethodOptions { card: &details.card_options },
            billing_details_collection: details.billing_details_collection.as_str(),
            description: details.description.as_ref().map(Description::as_str),
            submit_type: details.submit_type.as_str(),
            statement_descriptor: details.statement_descriptor.as_ref().map(StatementDescriptor::as_str),
            expires_at: details.expires_at.unix_seconds(),
            created_at: session.created_at().unix_seconds(),
            updated_at: session.updated_at().unix_seconds(),
        }
    }
}

/// Its statuses, as the OpenAPI document lists them.
fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&CheckoutSessionStatus::ALL, CheckoutSessionStatus::as_str))
}
