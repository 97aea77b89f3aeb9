//! An operation sent to a live processor, as the operator API shows it: what it asked, of which
//! payment, under which idempotency key, and where it stands, so that an operator can settle an
//! unresolved one with the processor.

use payments_domain::processor_operation::{OperationState, ProcessorOperation};
use serde_json::{json, Value};

pub(crate) fn processor_operation_json(operation: &ProcessorOperation) -> Value {
    let next_check_at = match operation.state() {
        OperationState::Unknown { next_check_at, .. } => Some(next_check_at.unix_seconds()),
        _ => None,
    };
    json!({
        "idempotency_key": operation.idempotency_key(),
        "resource": "processor_operation",
        "kind": operation.kind().as_str(),
        "payment_intent_id": operation.payment_intent().as_str(),
        "payment_id": operation.payment().as_str(),
        "refund_id": operation.kind().refund().map(|refund| refund.as_str().to_owned()),
        "amount": operation.amount().get(),
        "attempt": operation.attempt(),
        "state": operation.state().as_str(),
        "next_check_at": next_check_at,
        "sent_at": operation.sent_at().unix_seconds(),
        "created_at": operation.created_at().unix_seconds(),
    })
}
