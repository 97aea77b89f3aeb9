//! The delivery worker: claims due deliveries under a lease, sends them through the
//! [`WebhookSender`] port with bounded concurrency, signed at the [`Clock`]'s time, and records each
//! attempt. It wakes when events are committed and polls as a fallback, and never runs on a
//! request's path. [`DeliveryWorker::tick`] runs one batch to its end, so tests can drive it step by
//! step with a fake clock.

use crate::metrics::{BackgroundJob, Metrics};
use futures_util::stream::{self, StreamExt};
use payments_application::ports::{Clock, OutgoingWebhook, WebhookSender};
use payments_application::services::{DeliveryJob, WebhookDeliveryService};
use payments_domain::webhook::AttemptOutcome;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{Notify, Semaphore};

/// Batches whose attempts may be waiting to be recorded while the next one is sent.
const RECORDING_BATCHES: usize = 2;

/// How the worker runs.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Deliveries sent at once.
    pub concurrency: usize,
    /// How long a claim holds before another instance may take the delivery over.
    pub lease: Duration,
    /// The longest wait between two looks for due deliveries.
    pub poll_interval: Duration,
    /// Deliveries claimed per look.
    pub batch: u32,
}

/// A running worker's parts.
pub struct DeliveryWorker {
    service: Arc<WebhookDeliveryService>,
    sender: Arc<dyn WebhookSender>,
    clock: Arc<dyn Clock>,
    wake: Arc<Notify>,
    settings: WorkerSettings,
    /// This instance's name on its leases.
    owner: String,
    /// Batches being recorded at once.
    recording: Arc<Semaphore>,
    metrics: Arc<Metrics>,
}

impl DeliveryWorker {
    #[must_use]
    pub fn new(
        service: Arc<WebhookDeliveryService>,
        sender: Arc<dyn WebhookSender>,
        clock: Arc<dyn Clock>,
        wake: Arc<Notify>,
        settings: WorkerSettings,
        owner: String,
        metrics: Arc<Metrics>,
    ) -> Self {
        let recording = Arc::new(Semaphore::new(RECORDING_BATCHES));
        Self { service, sender, clock, wake, settings, owner, recording, metrics }
    }

    /// Delivers until the task is dropped. Each batch is recorded beside the sending of the next.
    pub async fn run(self) {
        let this = Arc::new(self);
        loop {
            let claimed = this.deliver_due(Recording::Beside).await;
            if claimed < this.settings.batch as usize {
                // Nothing more is due now: sleep until an event commits or the poll interval passes.
                let _ = tokio::time::timeout(this.settings.poll_interval, this.wake.notified()).await;
            }
        }
    }

    /// Claims, sends and records one batch of due deliveries, and returns how many it claimed.
    pub async fn tick(self: &Arc<Self>) -> usize {
        self.deliver_due(Recording::Awaited).await
    }

    async fn deliver_due(self: &Arc<Self>, recording: Recording) -> usize {
        let (service, owner) = (self.service.clone(), self.owner.clone());
        let (batch, lease_ms) =
            (self.settings.batch, i64::try_from(self.settings.lease.as_millis()).unwrap_or(i64::MAX));
        let jobs = match tokio::task::spawn_blocking(move || service.claim_due(&owner, batch, lease_ms)).await {
            Ok(Ok(jobs)) => jobs,
            Ok(Err(error)) => {
                tracing::warn!(%error, "could not claim webhook deliveries");
                return 0;
            }
            Err(error) => {
                tracing::warn!(%error, "the claim task failed");
                return 0;
            }
        };
        let claimed = jobs.len();
        if claimed == 0 {
            // Nothing to record either: no empty transaction on every look.
            return 0;
        }
        let claimed_at = self.clock.now();
        for job in &jobs {
            self.metrics.job_started(BackgroundJob::WebhookDelivery, job.delivery.next_attempt_at(), claimed_at);
        }
        let attempts: Vec<(DeliveryJob, AttemptOutcome)> = stream::iter(jobs)
            .map(|job| {
                let this = self.clone();
                async move {
                    let outgoing = OutgoingWebhook {
                        url: &job.url,
                        body: &job.body,
                        secret_key: &job.secret_key,
                        livemode: job.delivery.livemode(),
                        signed_at: this.clock.now(),
                    };
                    let outcome = this.sender.send(outgoing).await;
                    this.metrics.webhook_attempt(&outcome);
                    (job, outcome)
                }
            })
            .buffer_unordered(self.settings.concurrency)
            .collect()
            .await;
        // Recording beside the next batch is safe: the deliveries keep their leases until settled,
        // so no look claims them again meanwhile. At most two batches wait to be recorded.
        let Ok(permit) = self.recording.clone().acquire_owned().await else {
            return claimed;
        };
        let (service, owner) = (self.service.clone(), self.owner.clone());
        let record = async move {
            let recorded = tokio::task::spawn_blocking(move || service.record(&owner, &attempts)).await;
            if !matches!(recorded, Ok(Ok(()))) {
                tracing::warn!("could not record webhook delivery attempts; they are retried after their lease");
            }
            drop(permit);
        };
        match recording {
            Recording::Beside => drop(tokio::spawn(record)),
            Recording::Awaited => record.await,
        }
        claimed
    }
}

/// Whether a batch's attempts are recorded before the next batch starts.
#[derive(Debug, Clone, Copy)]
enum Recording {
    Beside,
    Awaited,
}
