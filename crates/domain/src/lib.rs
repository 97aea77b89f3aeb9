//! Entities, value types and rules of the payments service.
//!
//! Nothing here does I/O, reads a clock or draws randomness: time, ids and random parts come in as
//! arguments, so every rule is a pure function that can be tested on its own.

pub mod absolute_url;
pub mod account;
pub mod balance;
pub mod billing_statement;
pub mod checkout_session;
pub mod connector_account;
pub mod console_session;
pub mod customer;
pub mod customer_session;
pub mod description;
pub mod error;
pub mod event;
pub mod hosted_page;
pub mod ids;
pub mod limits;
pub mod mail_message;
pub mod metadata;
pub mod money;
pub mod page;
pub mod payment;
pub mod payment_intent;
pub mod payment_method;
pub mod payout;
pub mod pending_authorization;
pub mod price;
pub mod processor_event;
pub mod processor_operation;
pub mod product;
pub mod public_address;
pub mod redirect_url;
pub mod refund;
pub mod request_log;
pub mod retry;
pub mod setup_intent;
pub mod statement_descriptor;
pub mod test_clock;
pub mod time;
pub mod validation;
pub mod webhook;
pub mod webhook_delivery;
pub mod webhook_signature;
