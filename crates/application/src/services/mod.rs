//! One use-case service per resource.

pub mod account;
pub mod customer;
pub mod event;
pub mod idempotency;
pub mod payment;
pub mod payment_intent;
pub mod refund;
pub mod webhook;
pub mod webhook_delivery;

pub use account::AccountService;
pub use customer::CustomerService;
pub use event::EventService;
pub use idempotency::{IdempotencyService, IdempotentStart};
pub use payment::{PaymentService, PaymentView};
pub use payment_intent::{
    Access, AttachOutcome, AttachRequest, PaymentIntentService, PaymentIntentSettings, PaymentIntentView, Processors,
    RedirectCompletion, RedirectPage,
};
pub use refund::RefundService;
pub use webhook::WebhookService;
pub use webhook_delivery::{DeliveryJob, WebhookDeliveryService};
