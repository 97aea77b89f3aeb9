//! Storage through diesel on PostgreSQL or embedded SQLite, chosen by the database URL.

mod account;
mod billing_statement;
mod checkout_session;
mod connection;
mod customer;
mod customer_session;
mod error;
mod event;
mod idempotency;
mod json;
mod mail_message;
mod payment;
mod payment_intent;
mod payment_method;
mod refund;
mod schema;
mod setup_intent;
#[cfg(feature = "testing")]
pub mod testing;
#[cfg(feature = "testing")]
pub mod tls_cluster;
mod unit_of_work;
mod webhook;
mod webhook_delivery;

pub use connection::{
    AnyConnection, Backend, ConnectError, ConnectionManager, DatabaseError, DatabaseUrl, Pool, PoolSettings,
    PooledConnection, PostgresTls, TlsMode,
};
pub use unit_of_work::DieselUnitOfWork;
