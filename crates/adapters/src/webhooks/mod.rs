//! Webhook delivery: the signature, the URL rules, the HTTP dispatcher and the delivery worker.

mod dispatcher;
mod signer;
mod url_guard;
mod worker;

pub use dispatcher::Dispatcher;
pub use signer::signature_header;
pub use url_guard::ResolvingUrlGuard;
pub use worker::{DeliveryWorker, WorkerSettings};
