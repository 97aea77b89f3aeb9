//! The API's representation of resources, lent to the application (the `Presenter` port) so events
//! carry exactly what a retrieval returns.

use crate::representation::event::EventResource;
use crate::representation::payment::PaymentResource;
use crate::representation::payment_intent::PaymentIntentResource;
use crate::representation::refund::RefundResource;
use payments_application::ports::Presenter;
use payments_domain::customer::Customer;
use payments_domain::event::Event;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::refund::Refund;
use serde::Serialize;
use serde_json::Value;

/// Renders resources as the routes do.
#[derive(Debug, Default, Clone, Copy)]
pub struct ApiPresenter;

fn to_value(resource: &impl Serialize) -> Value {
    // These resources hold only strings, numbers and maps with string keys: serializing cannot fail.
    serde_json::to_value(resource).unwrap_or(Value::Null)
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

    fn event(&self, event: &Event) -> String {
        serde_json::to_string(&EventResource::new(event)).unwrap_or_default()
    }
}
