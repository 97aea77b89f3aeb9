//! The mail worker: claims due messages of the outbox under a lease, hands each to the [`Mailer`]
//! and records how it went. It wakes after commits and polls as a fallback, and never runs on a
//! request's path. [`MailWorker::tick`] runs one batch to its end, for tests.

use futures_util::stream::{self, StreamExt};
use payments_application::ports::Mailer;
use payments_application::services::MailMessageService;
use payments_domain::mail_message::MailOutcome;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// How the worker runs.
#[derive(Debug, Clone)]
pub struct MailWorkerSettings {
    /// Messages handed over at once.
    pub concurrency: usize,
    /// How long a claim holds before another instance may take the message over.
    pub lease: Duration,
    /// The longest wait between two looks for due messages.
    pub poll_interval: Duration,
    /// Messages claimed per look.
    pub batch: u32,
}

/// A running mail worker's parts.
pub struct MailWorker {
    service: Arc<MailMessageService>,
    mailer: Arc<dyn Mailer>,
    wake: Arc<Notify>,
    settings: MailWorkerSettings,
}

impl MailWorker {
    #[must_use]
    pub fn new(
        service: Arc<MailMessageService>,
        mailer: Arc<dyn Mailer>,
        wake: Arc<Notify>,
        settings: MailWorkerSettings,
    ) -> Self {
        Self { service, mailer, wake, settings }
    }

    /// Sends until `stop` completes (or the task is dropped). A batch being sent when it does is
    /// finished and recorded first; nothing more is claimed.
    pub async fn run(self, stop: impl std::future::Future<Output = ()>) {
        tokio::pin!(stop);
        loop {
            let claimed = self.tick().await;
            let stopped = tokio::select! {
                biased;
                () = &mut stop => true,
                () = std::future::ready(()) => false,
            };
            if stopped {
                return;
            }
            if claimed < self.settings.batch as usize {
                tokio::select! {
                    () = &mut stop => return,
                    _ = tokio::time::timeout(self.settings.poll_interval, self.wake.notified()) => {}
                }
            }
        }
    }

    /// Claims, hands over and records one batch of due messages; returns how many it claimed.
    pub async fn tick(&self) -> usize {
        let (service, batch) = (self.service.clone(), self.settings.batch);
        let lease_ms = i64::try_from(self.settings.lease.as_millis()).unwrap_or(i64::MAX);
        let claimed = match tokio::task::spawn_blocking(move || service.claim_due(batch, lease_ms)).await {
            Ok(Ok(claimed)) => claimed,
            Ok(Err(error)) => {
                tracing::warn!(%error, "could not claim e-mail to send");
                return 0;
            }
            Err(error) => {
                tracing::warn!(%error, "the e-mail claim task failed");
                return 0;
            }
        };
        let count = claimed.len();
        stream::iter(claimed)
            .for_each_concurrent(self.settings.concurrency, |message| async move {
                let outcome = self.mailer.send(message.content()).await;
                match &outcome {
                    MailOutcome::Failed(reason) => {
                        tracing::warn!(mail = %message.id(), %reason, "an e-mail could not be sent; it is retried");
                    }
                    MailOutcome::Refused(reason) => {
                        tracing::warn!(mail = %message.id(), %reason, "the mail server refused an e-mail for good");
                    }
                    MailOutcome::Sent | MailOutcome::Kept => {}
                }
                let service = self.service.clone();
                let recorded = tokio::task::spawn_blocking(move || service.record(&message, &outcome)).await;
                if !matches!(recorded, Ok(Ok(()))) {
                    tracing::warn!("could not record an e-mail's hand-over; it is sent again after its lease");
                }
            })
            .await;
        count
    }
}
