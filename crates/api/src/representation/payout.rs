//! A payout and its lines (payout transactions) as the API shows them, with PayRex's fields.

use payments_domain::payout::{BankAccount, Payout, PayoutStatus, PayoutTransaction, TransactionType};
use serde::Serialize;
use utoipa::ToSchema;

const RESOURCE: &str = "payout";
const TRANSACTION_RESOURCE: &str = "payout_transaction";

/// A payout to the merchant's bank account: `amount` gross (payments less refunds), `net_amount`
/// after fees (what reaches the bank).
#[derive(Serialize, ToSchema)]
#[schema(as = Payout)]
pub(crate) struct PayoutResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    net_amount: i64,
    currency: &'static str,
    destination: &'a BankAccount,
    #[schema(schema_with = status_schema)]
    status: &'static str,
    /// Why the bank returned it, once `failed`.
    failure_code: Option<&'a str>,
    livemode: bool,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PayoutResource<'a> {
    pub(crate) fn new(payout: &'a Payout) -> Self {
        Self {
            id: payout.id().as_str(),
            resource: RESOURCE,
            amount: payout.amount().get(),
            net_amount: payout.net_amount().get(),
            currency: "PHP",
            destination: payout.destination(),
            status: payout.status().as_str(),
            failure_code: payout.failure_code(),
            livemode: payout.livemode(),
            created_at: payout.created_at().unix_seconds(),
            updated_at: payout.updated_at().unix_seconds(),
        }
    }
}

/// One line of a payout: a payment (positive), a refund (negative) or an adjustment (a failed
/// payout's money, paid out again).
#[derive(Serialize, ToSchema)]
#[schema(as = PayoutTransaction)]
pub(crate) struct PayoutTransactionResource<'a> {
    id: &'a str,
    resource: &'static str,
    amount: i64,
    net_amount: i64,
    /// The payment (`pay_`), refund (`re_`) or failed payout (`po_`) the line pays out.
    transaction_id: &'a str,
    #[schema(schema_with = transaction_type_schema)]
    transaction_type: &'static str,
    payout_id: &'a str,
    created_at: i64,
    updated_at: i64,
}

impl<'a> PayoutTransactionResource<'a> {
    pub(crate) fn new(line: &'a PayoutTransaction) -> Self {
        Self {
            id: line.id.as_str(),
            resource: TRANSACTION_RESOURCE,
            amount: line.amount.get(),
            net_amount: line.net_amount.get(),
            transaction_id: line.source.id(),
            transaction_type: line.source.transaction_type().as_str(),
            payout_id: line.payout_id.as_str(),
            created_at: line.created_at.unix_seconds(),
            updated_at: line.created_at.unix_seconds(),
        }
    }
}

fn status_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&PayoutStatus::ALL, PayoutStatus::as_str))
}

fn transaction_type_schema() -> utoipa::openapi::schema::Schema {
    super::one_of(crate::decode::names(&TransactionType::ALL, TransactionType::as_str))
}
