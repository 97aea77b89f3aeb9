//! A presenter that shows what the tests look at.

use crate::ports::Presenter;
use payments_domain::billing_statement::{BillingStatement, LineItem};
use payments_domain::checkout_session::CheckoutSession;
use payments_domain::customer::Customer;
use payments_domain::event::Event;
use payments_domain::ids::BillingStatementId;
use payments_domain::payment::Payment;
use payments_domain::payment_intent::PaymentIntent;
use payments_domain::refund::Refund;
use payments_domain::setup_intent::SetupIntent;
use serde_json::{json, Value};

/// A presenter that shows the fields the tests look at.
#[derive(Debug, Default)]
pub struct MinimalPresenter;

impl Presenter for MinimalPresenter {
    fn payment_intent(&self, intent: &PaymentIntent, latest_payment: Option<&Payment>, _: Option<&Customer>) -> Value {
        json!({
            "id": intent.id().as_str(),
            "status": intent.status().as_str(),
            "amount_received": intent.amount_received(),
            "amount_capturable": intent.amount_capturable(),
            "latest_payment": latest_payment.map(|p| p.id().as_str()),
        })
    }

    fn payment(&self, payment: &Payment, _: Option<&Customer>) -> Value {
        json!({"id": payment.id().as_str(), "status": payment.status().as_str(), "amount_refunded": payment.amount_refunded()})
    }

    fn refund(&self, refund: &Refund) -> Value {
        json!({"id": refund.id().as_str(), "amount": refund.amount()})
    }

    fn payout(&self, payout: &payments_domain::payout::Payout) -> Value {
        json!({"id": payout.id().as_str(), "status": payout.status().as_str(), "net_amount": payout.net_amount().get()})
    }

    fn setup_intent(&self, intent: &SetupIntent, customer: &Customer) -> Value {
        json!({"id": intent.id().as_str(), "status": intent.status().as_str(), "customer": customer.id.as_str()})
    }

    fn checkout_session(&self, session: &CheckoutSession, payment_intent: &Value) -> Value {
        json!({"id": session.id().as_str(), "status": session.status().as_str(), "payment_intent": payment_intent})
    }

    fn billing_statement(&self, statement: &BillingStatement, _: &Customer, intent: Option<&Value>, _: &str) -> Value {
        json!({"id": statement.id().as_str(), "status": statement.status().as_str(), "amount": statement.amount(), "payment_intent": intent})
    }

    fn billing_statement_line_item(&self, item: &LineItem, statement_id: &BillingStatementId, _: bool) -> Value {
        json!({"id": item.id.as_str(), "billing_statement_id": statement_id.as_str(), "quantity": item.quantity})
    }

    fn event(&self, event: &Event, data: &Value, _: &Value) -> String {
        json!({"id": event.id.as_str(), "type": event.event_type.as_str(), "data": data}).to_string()
    }

    fn stored_event(&self, event: &Event) -> String {
        let mut envelope: Value = serde_json::from_str(&event.body).unwrap_or(Value::Null);
        envelope["pending_webhooks"] = json!(event.pending_webhooks);
        envelope.to_string()
    }
}
