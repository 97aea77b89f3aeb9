//! The JSON representation of each resource, one file per resource: what responses carry, and what
//! events carry as their `data`.

pub(crate) mod account;
pub(crate) mod balance;
pub(crate) mod billing_statement;
pub(crate) mod billing_statement_line_item;
pub(crate) mod checkout_session;
pub(crate) mod connector_account;
pub(crate) mod customer;
pub(crate) mod customer_session;
pub(crate) mod envelope;
pub(crate) mod event;
pub(crate) mod health;
pub(crate) mod page;
pub(crate) mod payment;
pub(crate) mod payment_intent;
pub(crate) mod payment_method;
pub(crate) mod payout;
pub(crate) mod price;
pub(crate) mod processor_operation;
pub(crate) mod product;
pub(crate) mod refund;
pub(crate) mod request_log;
pub(crate) mod setup_intent;
pub(crate) mod test_clock;
pub(crate) mod webhook;

use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

/// The schema of a string that is one of `names` (a status: `names(&Status::ALL, Status::as_str)`).
pub(crate) fn one_of(names: Vec<&'static str>) -> Schema {
    Schema::Object(ObjectBuilder::new().schema_type(Type::String).enum_values(Some(names)).build())
}
