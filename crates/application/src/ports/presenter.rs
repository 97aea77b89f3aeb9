//! The presenter port: resources as the API shows them, so events carry exactly what a retrieval
//! would return.

use payments_domain::billing_statement::{BillingStatement, LineItem};
use payments_domain::checkout_session::CheckoutSession;
use payments_domain::customer::Customer;
use payments_domain::event::Event;
use payments_domain::ids::BillingStatementId;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::payout::Payout;
use payments_domain::refund::Refund;
use payments_domain::setup_intent::SetupIntent;
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
    fn payout(&self, payout: &Payout) -> Value;
    fn setup_intent(&self, intent: &SetupIntent, customer: &Customer) -> Value;
    /// A checkout session embedding its payment intent, already presented.
    fn checkout_session(&self, session: &CheckoutSession, payment_intent: &Value) -> Value;
    /// A billing statement embedding its payment intent (once finalized), already presented.
    fn billing_statement(
        &self,
        statement: &BillingStatement,
        customer: &Customer,
        payment_intent: Option<&Value>,
        merchant_name: &str,
    ) -> Value;
    /// A line item of the statement `statement_id`.
    fn billing_statement_line_item(&self, item: &LineItem, statement_id: &BillingStatementId, livemode: bool) -> Value;
    /// The envelope of `event` (whose `body` is not set yet) with its `data` and
    /// `previous_attributes`, as JSON text: stored as the event's `body`.
    fn event(&self, event: &Event, data: &Value, previous_attributes: &Value) -> String;
    /// The stored envelope of `event` with `pending_webhooks` as the event was read (how many
    /// webhooks still wait for it now): what `GET /events/:id` returns and a webhook is sent.
    fn stored_event(&self, event: &Event) -> String;
}
