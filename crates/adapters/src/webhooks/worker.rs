//! The delivery worker: claims due deliveries under a lease, sends them with bounded concurrency,
//! records each attempt. It wakes when events are committed and polls as a fallback, and never runs
//! on a request's path.

use super::dispatcher::Dispatcher;
use futures_util::stream::{self, StreamExt};
use payments_application::services::WebhookDeliveryService;
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
    dispatcher: Dispatcher,
    wake: Arc<Notify>,
    settings: WorkerSettings,
    /// This instance's name on its leases.
    owner: String,
    /// Batches being recorded at once.
    recording: Arc<Semaphore>,
}

impl DeliveryWorker {
    #[must_use]
    pub fn new(
        service: Arc<WebhookDeliveryService>,
        dispatcher: Dispatcher,
        wake: Arc<Notify>,
        settings: WorkerSettings,
        owner: String,
    ) -> Self {
        Self { service, dispatcher, wake, settings, owner, recording: Arc::new(Semaphore::new(RECORDING_BATCHES)) }
    }

    /// Delivers until the task is dropped.
    pub async fn run(self) {
        let this = Arc::new(self);
        loop {
            let claimed = this.deliver_due().await;
            if claimed < this.settings.batch as usize {
                // Nothing more is due now: sleep until an event commits or the poll interval passes.
                let _ = tokio::time::timeout(this.settings.poll_interval, this.wake.notified()).await;
            }
        }
    }

    /// Claims, sends and records one batch; returns how many deliveries it claimed.
    async fn deliver_due(self: &Arc<Self>) -> usize {
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
        let attempts: Vec<_> = stream::iter(jobs)
            .map(|job| {
                let this = self.clone();
                async move {
                    let outcome = this.dispatcher.send(&job).await;
                    (job, outcome)
                }
            })
            .buffer_unordered(self.settings.concurrency)
            .collect()
            .await;
        // Recording runs beside the next batch: its deliveries keep their leases until settled, so
        // no look claims them again meanwhile. At most two batches wait to be recorded.
        let Ok(permit) = self.recording.clone().acquire_owned().await else {
            return claimed;
        };
        let (service, owner) = (self.service.clone(), self.owner.clone());
        tokio::spawn(async move {
            let recorded = tokio::task::spawn_blocking(move || service.record(&owner, &attempts)).await;
            if !matches!(recorded, Ok(Ok(()))) {
                tracing::warn!("could not record webhook delivery attempts; they are retried after their lease");
            }
            drop(permit);
        });
        claimed
    }
}
