//! Webhook delivery: the URL rules, the HTTP sender and the delivery worker.

mod http_sender;
mod url_guard;
mod worker;

pub use http_sender::{HttpWebhookSender, SenderBuildError, SIGNATURE_HEADER};
pub use url_guard::ResolvingUrlGuard;
pub use worker::{DeliveryWorker, WorkerSettings};
