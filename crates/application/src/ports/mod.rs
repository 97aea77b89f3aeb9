//! Ports: what the use cases need from the outside world, as object-safe traits.

pub mod account;
pub mod balance;
pub mod billing_statement;
pub mod checkout_session;
pub mod clock;
pub mod connector;
pub mod connector_account;
pub mod console_session;
pub mod customer;
pub mod customer_session;
pub mod event;
pub mod id_generator;
pub mod idempotency;
pub mod mail_message;
pub mod page;
pub mod payment;
pub mod payment_intent;
pub mod payment_method;
pub mod payout;
pub mod payout_rail;
pub mod presenter;
pub mod price;
pub mod processor;
pub mod processor_event;
pub mod processor_operation;
pub mod product;
pub mod refund;
pub mod request_log;
pub mod setup_intent;
pub mod unit_of_work;
pub mod webhook;
pub mod webhook_delivery;

pub use account::{AccountRepository, ArchivedRow, ArchivedRows, DeletedCounts, KeyRecord};
pub use balance::BalanceRepository;
pub use billing_statement::{BillingStatementFilter, BillingStatementRepository};
pub use checkout_session::{CheckoutSessionFilter, CheckoutSessionRepository};
pub use clock::Clock;
pub use connector_account::{ConnectorAccountRepository, SealError, SecretSealer};
pub use console_session::ConsoleSessionRepository;
pub use customer::{CustomerFilter, CustomerRepository};
pub use customer_session::CustomerSessionRepository;
pub use event::{Appended, EventFilter, EventRepository};
pub use id_generator::IdGenerator;
pub use idempotency::{IdempotencyRecord, IdempotencyRepository, IdempotencyState};
pub use mail_message::{MailComposer, MailMessageRepository, MailSending, Mailer, StatementNotice};
pub use page::PageRepository;
pub use payment::{PaymentFilter, PaymentRepository};
pub use payment_intent::{IntentOutcome, PaymentIntentFilter, PaymentIntentRepository};
pub use payment_method::PaymentMethodRepository;
pub use payout::{PayoutFilter, PayoutRepository, ReconciledPayment, ReconciliationLine};
pub use payout_rail::{KnownAccount, PayoutRail};
pub use presenter::Presenter;
pub use price::PriceRepository;
pub use processor::{
    Authorization, AuthorizationRequest, PaymentMethodInput, PaymentProcessor, ProcessorError, Verification,
    VerificationRequest,
};
pub use processor_event::ProcessorEventRepository;
pub use processor_operation::ProcessorOperationRepository;
pub use product::ProductRepository;
pub use refund::RefundRepository;
pub use request_log::{RequestLogFilter, RequestLogRepository};
pub use setup_intent::SetupIntentRepository;
pub use unit_of_work::{in_transaction, reading, retry_on_conflict, retry_on_conflict_up_to, Repositories, UnitOfWork};
pub use webhook::{UrlGuard, WebhookFilter, WebhookRepository};
pub use webhook_delivery::{
    DeliveryAttempt, DeliveryBacklog, DeliveryRepository, OutgoingWebhook, PassOver, Sending, WebhookSender,
};

pub use crate::error::StoreError;
