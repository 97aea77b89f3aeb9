//! The API's representation of resources, lent to the application (the `Presenter` port) so events
//! carry exactly what a retrieval returns.

use crate::representation::billing_statement::BillingStatementResource;
use crate::representation::billing_statement_line_item::BillingStatementLineItemResource;
use crate::representation::checkout_session::CheckoutSessionResource;
use crate::representation::event::{live_envelope, EventResource};
use crate::representation::payment::PaymentResource;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::representation::refund::RefundResource;
use crate::representation::setup_intent::SetupIntentResource;
use payments_application::ports::Presenter;
use payments_domain::billing_statement::{BillingStatement, LineItem};
use payments_domain::checkout_session::CheckoutSession;
use payments_domain::customer::Customer;
use payments_domain::event::Event;
use payments_domain::ids::BillingStatementId;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::refund::Refund;
use payments_domain::setup_intent::SetupIntent;
use serde::Serialize;
use serde_json::Value;

/// Renders resources as the routes do.
#[derive(Debug, Default, Clone, Copy)]
pub struct ApiPresenter;

/// These resources hold only strings, numbers and maps with string keys, so serializing cannot fail;
/// if it ever did, the log says so rather than the event silently carrying `null`.
fn to_value(resource: &impl Serialize) -> Value {
    serde_json::to_value(resource).unwrap_or_else(|error| {
        tracing::error!(%error, "a resource could not be represented as JSON");
        Value::Null
    })
}

impl Presenter for ApiPresenter {
    fn payment_intent(
        &self,
        intent: &PaymentIntent,
        latest_payment: Option<&Payment>,
        customer: Option<&Customer>,
    ) -> Value {
        to_value(&PaymentIntentResource::from_parts(intent, latest_payment, customer))
    }

    fn payment(&self, payment: &Payment, customer: Option<&Customer>) -> Value {
        to_value(&PaymentResource::new(payment, customer))
    }

    fn refund(&self, refund: &Refund) -> Value {
        to_value(&RefundResource::new(refund))
    }

    fn payout(&self, payout: &payments_domain::payout::Payout) -> Value {
        to_value(&crate::representation::payout::PayoutResource::new(payout))
    }

    fn setup_intent(&self, intent: &SetupIntent, customer: &Customer) -> Value {
        to_value(&SetupIntentResource::from_parts(intent, customer))
    }

    fn checkout_session(&self, session: &CheckoutSession, payment_intent: &Value) -> Value {
        to_value(&CheckoutSessionResource::with_intent(session, payment_intent))
    }

    fn billing_statement(
        &self,
        statement: &BillingStatement,
        customer: &Customer,
        payment_intent: Option<&Value>,
        merchant_name: &str,
    ) -> Value {
        to_value(&BillingStatementResource::with_intent(statement, customer, payment_intent, merchant_name))
    }

    fn billing_statement_line_item(&self, item: &LineItem, statement_id: &BillingStatementId, livemode: bool) -> Value {
        to_value(&BillingStatementLineItemResource::new(item, statement_id, livemode))
    }

    fn event(&self, event: &Event, data: &Value, previous_attributes: &Value) -> String {
        serde_json::to_string(&EventResource::new(event, data, previous_attributes)).unwrap_or_else(|error| {
            tracing::error!(%error, event = %event.id, "an event envelope could not be rendered");
            String::new()
        })
    }

    fn stored_event(&self, event: &Event) -> String {
        live_envelope(event).map(|envelope| envelope.get().to_owned()).unwrap_or_else(|error| {
            tracing::error!(%error, event = %event.id, "a stored event envelope could not be read");
            event.body.clone()
        })
    }
}
