//! Operations written ahead of processor calls: written once per key, moved on by version, found by
//! key and by payment, and due for a check.

use super::*;
use payments_domain::balance::Centavos;
use payments_domain::processor_operation::{Answer, OperationKind, OperationState, ProcessorOperation};

pub fn processor_operations_are_written_once_and_checked_when_due(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let payment = PaymentId::from_random("0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b");
    let refund = RefundId::from_random("0VcKRLxSkpvoJfzraP9cXaFluMJ2CPW2");
    let tenant = (scope.account_id.clone(), scope.livemode());
    let intent = PaymentIntentId::from_random("0VcKRLxIntUzS3dfAVJZjOW6tPNtjH8b");
    let of = (intent.clone(), payment.clone());
    let written = |kind| ProcessorOperation::written(tenant.clone(), of.clone(), kind, Centavos::new(10_000), at(0));
    let authorize = written(OperationKind::Authorize);
    let refund_operation = written(OperationKind::Refund(refund.clone()));
    write(store, |r| r.processor_operations().insert(&authorize));
    write(store, |r| r.processor_operations().insert(&refund_operation));
    let again = in_transaction(store, |r| Ok(r.processor_operations().insert(&authorize)?));
    assert!(matches!(again, Err(ApplicationError::Conflict)), "one operation per key: {again:?}");

    let key = authorize.idempotency_key().to_owned();
    assert_eq!(read(store, |r| r.processor_operations().find(&scope, &key)), Some(authorize.clone()));
    let found = read(store, |r| r.processor_operations().find(&scope, refund_operation.idempotency_key()));
    let found = found.unwrap();
    assert_eq!((found.kind(), found.payment_intent()), (&OperationKind::Refund(refund), &intent));
    assert_eq!(read(store, |r| r.processor_operations().of_payment(&scope, &payment)).len(), 2);

    let mut unknown = authorize.clone();
    unknown.record(Answer::NoAnswer, at(1)).unwrap();
    write(store, |r| r.processor_operations().update(&unknown, authorize.version()));
    let lost = in_transaction(store, |r| Ok(r.processor_operations().update(&unknown, authorize.version())?));
    assert!(matches!(lost, Err(ApplicationError::Conflict)), "a second answer loses: {lost:?}");
    let stored = read(store, |r| r.processor_operations().find(&scope, &key)).unwrap();
    assert_eq!(stored, unknown);
    assert!(matches!(stored.state(), OperationState::Unknown { checks: 1, .. }));

    // The unknown one is due at its next check (31 s); the refund, left sending, after five minutes.
    assert!(read(store, |r| r.processor_operations().due(None, at(30), 10)).is_empty());
    assert_eq!(read(store, |r| r.processor_operations().due(Some(&scope), at(31), 10)), vec![unknown.clone()]);
    let both = read(store, |r| r.processor_operations().due(None, at(600), 10));
    assert_eq!(both, vec![unknown.clone(), refund_operation.clone()], "the longest due first");

    let mut done = unknown.clone();
    done.record(Answer::Done { processor_reference: "pi_1".into() }, at(31)).unwrap();
    write(store, |r| r.processor_operations().update(&done, unknown.version()));
    assert_eq!(read(store, |r| r.processor_operations().due(None, at(600), 10)), vec![refund_operation.clone()]);

    // A refused capture's next attempt is an operation of its own, under its own key, kept with
    // its attempt and when it was sent.
    let mut capture = written(OperationKind::Capture);
    write(store, |r| r.processor_operations().insert(&capture));
    let sent = capture.version();
    capture.record(Answer::Refused { code: "processing_error".into(), detail: "x".into() }, at(2)).unwrap();
    write(store, |r| r.processor_operations().update(&capture, sent));
    let second = ProcessorOperation::after_refusal(&capture, Centavos::new(6_000), at(3)).unwrap();
    write(store, |r| r.processor_operations().insert(&second));
    let stored = read(store, |r| r.processor_operations().find(&scope, second.idempotency_key())).unwrap();
    assert_eq!((stored.attempt(), stored.sent_at()), (2, at(3)));
    assert_eq!(stored, second);
    let of_payment = read(store, |r| r.processor_operations().of_payment(&scope, &payment));
    assert_eq!(of_payment.last(), Some(&second), "in the order written: {of_payment:?}");

    // What the processor has not answered, oldest first: the refund left sending, the second
    // capture being sent; not the authorization (answered) nor the refused capture.
    let unanswered = read(store, |r| r.processor_operations().unanswered(&scope, 10));
    let keys: Vec<&str> = unanswered.iter().map(ProcessorOperation::idempotency_key).collect();
    assert_eq!(keys, [refund_operation.idempotency_key(), second.idempotency_key()]);
    assert_eq!(read(store, |r| r.processor_operations().unanswered(&scope, 1)).len(), 1);

    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.processor_operations().find(&elsewhere, &key)), None);
    assert!(read(store, |r| r.processor_operations().of_payment(&elsewhere, &payment)).is_empty());
    assert!(read(store, |r| r.processor_operations().due(Some(&elsewhere), at(600), 10)).is_empty());
    assert!(read(store, |r| r.processor_operations().unanswered(&elsewhere, 10)).is_empty());
}
