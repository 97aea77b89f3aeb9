//! The refund and payment services over in-memory fakes: refunds up to what was paid, never twice
//! past it, with their events; payments updated; both confined to their scope.

use crate::support::{card_payment, event_count};
use payments_application::services::{Access, AttachOutcome};
use payments_application::testing::{card_intent, TestPorts};
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::description::Description;
use payments_domain::event::EventType;
use payments_domain::metadata::Metadata;
use payments_domain::money::Currency;
use payments_domain::refund::{NewRefund, RefundReason};
use std::collections::BTreeMap;

/// A payment of ₱100.00 by card; its id.
fn paid(ports: &TestPorts, scope: &Scope) -> String {
    let service = ports.payment_intent_service();
    let intent = service.create(scope, card_intent(10_000)).unwrap().intent;
    match service.attach(scope, intent.id().as_str(), Access::SecretKey, card_payment()).unwrap() {
        AttachOutcome::Attached(view) => view.latest_payment.unwrap().id().to_string(),
        AttachOutcome::Declined(_, error) => panic!("declined: {error:?}"),
    }
}

fn refund(payment_id: &str, amount: i64) -> NewRefund {
    NewRefund {
        amount,
        currency: Currency::Php,
        payment_id: payment_id.to_owned(),
        reason: RefundReason::RequestedByCustomer,
        description: None,
        remarks: None,
        metadata: None,
    }
}

#[test]
fn refunds_add_up_to_the_payment_and_no_further() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let payment_id = paid(&ports, &scope);
    let refunds = ports.refund_service();
    let first = refunds.create(&scope, &refund(&payment_id, 4_000)).unwrap();
    assert_eq!(first.amount(), 4_000);
    let too_much = refunds.create(&scope, &refund(&payment_id, 6_001));
    assert!(matches!(too_much, Err(ApplicationError::Validation(_))), "{too_much:?}");
    refunds.create(&scope, &refund(&payment_id, 6_000)).unwrap();
    let payment = ports.payment_service().retrieve(&scope, &payment_id).unwrap().payment;
    assert_eq!((payment.amount_refunded(), payment.refunded()), (10_000, true));
    let more = refunds.create(&scope, &refund(&payment_id, 1));
    assert!(more.is_err(), "nothing is left to refund: {more:?}");
    assert_eq!(event_count(&ports, &scope, EventType::RefundCreated), 2);
    assert_eq!(event_count(&ports, &scope, EventType::PaymentRefunded), 2);
}

#[test]
fn a_refund_names_a_payment_of_its_scope_in_its_currency() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let payment_id = paid(&ports, &scope);
    let refunds = ports.refund_service();
    for elsewhere in [ports.scope(Mode::Live), ports.other_scope()] {
        let refused = refunds.create(&elsewhere, &refund(&payment_id, 1_000));
        assert!(matches!(refused, Err(ApplicationError::Validation(_))), "{refused:?}");
        let found = ports.payment_service().retrieve(&elsewhere, &payment_id);
        assert!(matches!(found, Err(ApplicationError::NotFound { .. })), "{found:?}");
    }
    let unknown = refunds.create(&scope, &refund("pay_unknown", 1_000));
    assert!(matches!(unknown, Err(ApplicationError::Validation(_))), "{unknown:?}");
    let payment = ports.payment_service().retrieve(&scope, &payment_id).unwrap().payment;
    assert_eq!(payment.amount_refunded(), 0, "nothing refunded from elsewhere");
    assert_eq!(event_count(&ports, &scope, EventType::RefundCreated), 0);
}

#[test]
fn refunds_and_payments_take_new_metadata_and_descriptions() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let payment_id = paid(&ports, &scope);
    let created = ports.refund_service().create(&scope, &refund(&payment_id, 1_000)).unwrap();
    let ticket = Metadata::new(BTreeMap::from([("ticket".to_owned(), "7".to_owned())])).unwrap();
    let updated = ports.refund_service().update(&scope, created.id().as_str(), Some(ticket.clone())).unwrap();
    assert_eq!(updated.metadata(), Some(&ticket));
    assert_eq!(event_count(&ports, &scope, EventType::RefundUpdated), 1);
    let elsewhere = ports.refund_service().update(&ports.other_scope(), created.id().as_str(), None);
    assert!(matches!(elsewhere, Err(ApplicationError::NotFound { .. })), "{elsewhere:?}");

    let description = Description::new("Captured in part".into()).unwrap();
    let payment =
        ports.payment_service().update(&scope, &payment_id, Some(description.clone()), Some(ticket.clone())).unwrap();
    assert_eq!((payment.payment.description(), payment.payment.metadata()), (Some(&description), Some(&ticket)));
    let elsewhere = ports.payment_service().update(&ports.other_scope(), &payment_id, None, None);
    assert!(matches!(elsewhere, Err(ApplicationError::NotFound { .. })), "{elsewhere:?}");
}
