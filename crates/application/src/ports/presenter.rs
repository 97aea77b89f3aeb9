//! The presenter port: resources as the API shows them, so events carry exactly what a retrieval
//! would return.

use payments_domain::customer::Customer;
use payments_domain::event::Event;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::refund::Refund;
use serde_json::Value;

/// Renders resources in the API's representation.
pub trait Presenter: Send + Sync {
    fn payment_intent(
        &self,
        intent: &PaymentIntent,
        latest_payment: Option<&Payment>,
        customer: Option<&Customer>,
    ) -> Value;
    fn payment(&self, payment: &Payment, customer: Option<&Customer>) -> Value;
    fn refund(&self, refund: &Refund) -> Value;
    /// The event as webhook receivers get it (and `GET /events/:id` returns it), as JSON text.
    fn event(&self, event: &Event) -> String;
}
