//! Ports: what the use cases need from the outside world, as object-safe traits.

pub mod account;
pub mod clock;
pub mod customer;
pub mod event;
pub mod id_generator;
pub mod idempotency;
pub mod payment;
pub mod payment_intent;
pub mod presenter;
pub mod processor;
pub mod refund;
pub mod unit_of_work;
pub mod webhook;

pub use account::{AccountRepository, KeyRecord};
pub use clock::Clock;
pub use customer::{CustomerFilter, CustomerRepository};
pub use event::EventRepository;
pub use id_generator::IdGenerator;
pub use idempotency::{IdempotencyRecord, IdempotencyRepository, IdempotencyState};
pub use payment::PaymentRepository;
pub use payment_intent::PaymentIntentRepository;
pub use presenter::Presenter;
pub use processor::{Authorization, AuthorizationRequest, PaymentMethodInput, PaymentProcessor, ProcessorError};
pub use refund::RefundRepository;
pub use unit_of_work::{in_transaction, reading, retry_on_conflict, Repositories, UnitOfWork};
pub use webhook::{DeliveryAttempt, DeliveryRepository, UrlGuard, WebhookFilter, WebhookRepository};

use crate::error::BoxError;

/// A storage failure, as every repository reports it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An optimistic-concurrency check failed: a concurrent update won.
    #[error("a concurrent update won")]
    Conflict,
    /// A unique constraint refused the write; carries the constraint or index name.
    #[error("unique constraint {0} violated")]
    UniqueViolation(String),
    /// A list cursor names no object of the scope.
    #[error("the list cursor names no object")]
    UnknownCursor,
    /// The storage cannot be reached (connection refused or lost, pool timed out, database locked).
    #[error("the storage is unavailable")]
    Unavailable(#[source] BoxError),
    /// Any other storage fault.
    #[error("storage failure")]
    Other(#[source] BoxError),
}
