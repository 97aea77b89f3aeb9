//! A payment method saved to a customer, as the official clients' entity has it: what is shown of
//! the card, never its number or CVC.

use payments_domain::payment_method::{CardSummary, PaymentBilling, PaymentMethod};
use serde::Serialize;
use utoipa::ToSchema;

pub(crate) const RESOURCE: &str = "payment_method";

/// A saved payment method.
#[derive(Serialize, ToSchema)]
#[schema(as = PaymentMethod)]
pub(crate) struct PaymentMethodResource<'a> {
    id: &'a str,
    resource: &'static str,
    #[serde(rename = "type")]
    kind: &'static str,
    details: &'a CardSummary,
    billing_details: Option<&'a PaymentBilling>,
    customer_id: &'a str,
    usage: &'static str,
    /// Saved through a setup intent, so the customer may see it again in a payment form.
    allow_redisplay: &'static str,
    livemode: bool,
    #[schema(value_type = Option<Object>)]
    metadata: Option<()>,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PaymentMethodResource<'a> {
    pub(crate) fn new(method: &'a PaymentMethod) -> Self {
        Self {
            id: method.id.as_str(),
            resource: RESOURCE,
            kind: method.method().as_str(),
            details: &method.verified.card,
            billing_details: method.verified.billing.as_ref(),
            customer_id: method.customer_id.as_str(),
            usage: method.usage.as_str(),
            allow_redisplay: "always",
            livemode: method.livemode,
            metadata: None,
            created_at: method.created_at.unix_seconds(),
            updated_at: method.updated_at.unix_seconds(),
        }
    }
}
