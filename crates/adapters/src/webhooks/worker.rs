//! The delivery worker: claims due deliveries under a lease, sends them through the
//! [`WebhookSender`] port, signed at the [`Clock`]'s time, and records each attempt.
//!
//! Sending has no batch barrier. The worker claims a few deliveries ahead of sending and keeps
//! deliveries in flight up to its [`DeliveryLimits`] (in all, per endpoint, per account), starting
//! the next one as soon as a slot frees; it looks for more when an event commits, when slots free
//! while more were due, and at the poll interval. So a receiver that hangs holds only its own
//! endpoint's slots while every other receiver's deliveries go on. When a receiver does not answer,
//! the deliveries claimed for it and not yet sent are given back at once, and the application's
//! rules back its endpoint off. Finished attempts are recorded in batches beside the sending. It
//! never runs on a request's path.
//!
//! [`DeliveryWorker::tick`] claims, sends and records once, to its end, so tests can drive it step by
//! step with a fake clock.

use crate::metrics::{BackgroundJob, Metrics};
use payments_application::ports::{Clock, OutgoingWebhook, WebhookSender};
use payments_application::services::{Claimed, DeliveryJob, WebhookDeliveryService};
use payments_domain::webhook_delivery::{AttemptOutcome, DeliveryLimits, DeliveryLoad};
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, Notify, Semaphore};
use tokio::task::JoinSet;
use tokio::time::Instant;

/// How many times its limits the worker may hold claimed (waiting or in flight), so the next
/// delivery is at hand when a slot frees and a claim serves many sends.
const CLAIMED_AHEAD: usize = 4;
/// Batches of attempts that may be recorded at once.
const RECORDING_BATCHES: usize = 2;
/// The most attempts recorded in one transaction.
const RECORDED_AT_ONCE: usize = 256;
/// How long freed slots are gathered before the next look, when more deliveries were due than the
/// limits let the worker claim: one look for a handful of freed slots rather than one look each.
const GATHER_FREED_SLOTS: Duration = Duration::from_millis(2);

/// How the worker runs.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// Deliveries in flight at once: in all, to one endpoint, for one account.
    pub limits: DeliveryLimits,
    /// How long a claim holds before another instance may take the delivery over.
    pub lease: Duration,
    /// The longest wait between two looks for due deliveries.
    pub poll_interval: Duration,
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
    metrics: Arc<Metrics>,
}

/// An attempt made, on its way to be recorded.
type Attempt = (DeliveryJob, AttemptOutcome);

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
        Self { service, sender, clock, wake, settings, owner, metrics }
    }

    /// Delivers until `stop` completes (or the task is dropped). Then it claims nothing more, gives
    /// back the deliveries it claimed and has not started, finishes and records those it is sending,
    /// and returns: another instance takes what it gave back at once.
    pub async fn run(self, stop: impl std::future::Future<Output = ()>) {
        tokio::pin!(stop);
        let this = Arc::new(self);
        let (attempts, to_record) = mpsc::unbounded_channel();
        let unrecorded = Arc::new(AtomicUsize::new(0));
        let recorder = tokio::spawn(this.clone().record_beside(to_record, unrecorded.clone()));
        let mut queue = SendQueue::new(this.settings.limits);
        let mut sending: JoinSet<Attempt> = JoinSet::new();
        // A delivery waiting longer than this is given back: its lease would run out before it went.
        let longest_wait = this.settings.lease / 2;
        // When to look for due deliveries next (`None`: when woken), and when the poll falls due.
        let mut look_at = Some(Instant::now());
        let mut next_poll = Instant::now() + this.settings.poll_interval;
        // Whether the last look left due deliveries for later (no room, or their limits were reached).
        let mut more_due = false;
        loop {
            if look_at.is_some_and(|at| at <= Instant::now()) {
                look_at = None;
                next_poll = Instant::now() + this.settings.poll_interval;
                // Attempts waiting to be recorded keep their leases; past a full load of them the
                // worker lets the recorder catch up (it wakes the worker) rather than claim more.
                let recorder_keeps_up = unrecorded.load(Ordering::Relaxed) <= this.settings.limits.total;
                if queue.claimed.free() == 0 || !recorder_keeps_up {
                    more_due = true;
                } else {
                    let claimed = this.claim(&queue.claimed).await;
                    more_due = claimed.more_due;
                    queue.add(claimed.jobs, Instant::now());
                }
            }
            for job in queue.startable() {
                sending.spawn(this.clone().send(job));
            }
            this.give_back(queue.waiting_since(Instant::now().checked_sub(longest_wait)));
            tokio::select! {
                Some(finished) = sending.join_next(), if !sending.is_empty() => {
                    let mut finished = vec![finished];
                    while let Some(more) = sending.try_join_next() {
                        finished.push(more);
                    }
                    for attempt in finished.into_iter().filter_map(Result::ok) {
                        this.give_back(queue.finished(&attempt.0, &attempt.1));
                        unrecorded.fetch_add(1, Ordering::Relaxed);
                        if attempts.send(attempt).is_err() {
                            tracing::warn!("the webhook recorder stopped; attempts are retried after their lease");
                        }
                    }
                    if more_due && look_at.is_none() {
                        look_at = Some(Instant::now() + GATHER_FREED_SLOTS);
                    }
                }
                () = this.wake.notified() => look_at = Some(Instant::now()),
                () = tokio::time::sleep_until(look_at.map_or(next_poll, |at| at.min(next_poll))) => {
                    look_at = Some(Instant::now());
                }
                () = &mut stop => break,
            }
            if recorder.is_finished() {
                tracing::error!("the webhook recorder ended; the delivery worker stops");
                return;
            }
        }
        let waiting = queue.take_waiting(|_, _| true);
        let given_back = waiting.len();
        this.release(waiting).await;
        let in_flight = sending.len();
        while let Some(finished) = sending.join_next().await {
            if let Ok(attempt) = finished {
                unrecorded.fetch_add(1, Ordering::Relaxed);
                let _ = attempts.send(attempt);
            }
        }
        drop(attempts);
        let _ = recorder.await;
        tracing::info!(given_back, finished = in_flight, "the webhook worker stopped");
    }

    /// Claims, sends and records once, and returns how many deliveries it claimed.
    pub async fn tick(self: &Arc<Self>) -> usize {
        let claimed = self.claim(&DeliveryLoad::new(self.settings.limits)).await;
        let count = claimed.jobs.len();
        if count == 0 {
            // Nothing to record either: no empty transaction on every look.
            return 0;
        }
        let mut sending: JoinSet<Attempt> = JoinSet::new();
        for job in claimed.jobs {
            sending.spawn(self.clone().send(job));
        }
        let attempts: Vec<Attempt> = sending.join_all().await;
        self.record(attempts).await;
        count
    }

    /// Claims what `load` admits, in a blocking task.
    async fn claim(self: &Arc<Self>, load: &DeliveryLoad) -> Claimed {
        let (service, owner, load) = (self.service.clone(), self.owner.clone(), load.clone());
        let lease_ms = i64::try_from(self.settings.lease.as_millis()).unwrap_or(i64::MAX);
        let claimed = match tokio::task::spawn_blocking(move || service.claim_due(&owner, lease_ms, &load)).await {
            Ok(Ok(claimed)) => claimed,
            Ok(Err(error)) => {
                tracing::warn!(%error, "could not claim webhook deliveries");
                return Claimed::default();
            }
            Err(error) => {
                tracing::warn!(%error, "the claim task failed");
                return Claimed::default();
            }
        };
        tracing::debug!(claimed = claimed.jobs.len(), more_due = claimed.more_due, "claimed webhook deliveries");
        let claimed_at = self.clock.now();
        for job in &claimed.jobs {
            self.metrics.job_started(BackgroundJob::WebhookDelivery, job.delivery.next_attempt_at(), claimed_at);
        }
        claimed
    }

    /// Sends one claimed delivery, signed now.
    async fn send(self: Arc<Self>, job: DeliveryJob) -> Attempt {
        let outgoing = OutgoingWebhook {
            url: &job.url,
            event_id: job.delivery.event_id().as_str(),
            body: &job.body,
            secret_keys: &job.secret_keys,
            livemode: job.delivery.livemode(),
            signed_at: self.clock.now(),
        };
        let outcome = self.sender.send(outgoing).await;
        self.metrics.webhook_attempt(&outcome);
        (job, outcome)
    }

    /// Gives back the leases of claimed deliveries that will not be sent, in the background.
    fn give_back(self: &Arc<Self>, jobs: Vec<DeliveryJob>) {
        if jobs.is_empty() {
            return;
        }
        let this = self.clone();
        tokio::spawn(async move { this.release(jobs).await });
    }

    /// Gives back the leases of claimed deliveries that will not be sent.
    async fn release(&self, jobs: Vec<DeliveryJob>) {
        if jobs.is_empty() {
            return;
        }
        let (service, owner) = (self.service.clone(), self.owner.clone());
        let released = tokio::task::spawn_blocking(move || service.release(&owner, &jobs)).await;
        if !matches!(released, Ok(Ok(()))) {
            tracing::warn!("could not give back webhook deliveries; they are taken over after their lease");
        }
    }

    /// Records finished attempts as they come, in batches of whatever arrived while the previous
    /// batch was being recorded, at most [`RECORDING_BATCHES`] at once. The deliveries keep their
    /// leases until settled, so no look claims them again meanwhile.
    async fn record_beside(
        self: Arc<Self>,
        mut attempts: mpsc::UnboundedReceiver<Attempt>,
        unrecorded: Arc<AtomicUsize>,
    ) {
        let recording = Arc::new(Semaphore::new(RECORDING_BATCHES));
        let mut batches = JoinSet::new();
        loop {
            while batches.try_join_next().is_some() {}
            let Ok(permit) = recording.clone().acquire_owned().await else {
                return;
            };
            let Some(first) = attempts.recv().await else {
                // The worker stopped: the batches under way are recorded before this ends.
                while batches.join_next().await.is_some() {}
                return;
            };
            let mut batch = vec![first];
            while batch.len() < RECORDED_AT_ONCE {
                match attempts.try_recv() {
                    Ok(attempt) => batch.push(attempt),
                    Err(_) => break,
                }
            }
            let (this, unrecorded) = (self.clone(), unrecorded.clone());
            batches.spawn(async move {
                let count = batch.len();
                this.record(batch).await;
                let before = unrecorded.fetch_sub(count, Ordering::Relaxed);
                if before > this.settings.limits.total {
                    // The worker may have waited for the recorder: it looks again.
                    this.wake.notify_one();
                }
                drop(permit);
            });
        }
    }

    /// Records a batch of attempts in a blocking task.
    async fn record(&self, attempts: Vec<Attempt>) {
        tracing::debug!(attempts = attempts.len(), "recording webhook delivery attempts");
        let (service, owner) = (self.service.clone(), self.owner.clone());
        let recorded = tokio::task::spawn_blocking(move || service.record(&owner, &attempts)).await;
        if !matches!(recorded, Ok(Ok(()))) {
            tracing::warn!("could not record webhook delivery attempts; they are retried after their lease");
        }
    }
}

/// The deliveries a worker holds: claimed and waiting to be sent, and being sent.
struct SendQueue {
    /// Claimed and not sent yet, in claim order, with when they were claimed.
    waiting: VecDeque<(DeliveryJob, Instant)>,
    /// Everything claimed and not finished, held to the limits [`CLAIMED_AHEAD`] times over.
    claimed: DeliveryLoad,
    /// Being sent, held to the limits.
    sending: DeliveryLoad,
}

impl SendQueue {
    fn new(limits: DeliveryLimits) -> Self {
        Self {
            waiting: VecDeque::new(),
            claimed: DeliveryLoad::new(limits.times(CLAIMED_AHEAD)),
            sending: DeliveryLoad::new(limits),
        }
    }

    /// Takes in deliveries claimed at `now`.
    fn add(&mut self, jobs: Vec<DeliveryJob>, now: Instant) {
        for job in jobs {
            self.claimed.start(&job.delivery, job.health);
            self.waiting.push_back((job, now));
        }
    }

    /// The waiting deliveries that may be sent now, in claim order, counted as being sent.
    fn startable(&mut self) -> Vec<DeliveryJob> {
        let mut started = Vec::new();
        let mut kept = VecDeque::with_capacity(self.waiting.len());
        for (job, claimed_at) in self.waiting.drain(..) {
            if self.sending.admits(&job.delivery, job.health) {
                self.sending.start(&job.delivery, job.health);
                started.push(job);
            } else {
                kept.push_back((job, claimed_at));
            }
        }
        self.waiting = kept;
        started
    }

    /// Counts a sent delivery out. When its receiver did not answer, the deliveries waiting for the
    /// same endpoint are taken out, to be given back: whether and when that endpoint is tried
    /// again is the application's decision once the attempt is recorded.
    fn finished(&mut self, job: &DeliveryJob, outcome: &AttemptOutcome) -> Vec<DeliveryJob> {
        self.sending.finish(&job.delivery);
        self.claimed.finish(&job.delivery);
        if outcome.answered() {
            return Vec::new();
        }
        let endpoint = job.delivery.webhook_id();
        self.take_waiting(|waiting, _| waiting.delivery.webhook_id() == endpoint)
    }

    /// Takes out the deliveries waiting since before `before`, to be given back.
    fn waiting_since(&mut self, before: Option<Instant>) -> Vec<DeliveryJob> {
        match before {
            Some(before) if self.waiting.front().is_some_and(|(_, claimed_at)| *claimed_at < before) => {
                self.take_waiting(|_, claimed_at| claimed_at < before)
            }
            _ => Vec::new(),
        }
    }

    fn take_waiting(&mut self, taken: impl Fn(&DeliveryJob, Instant) -> bool) -> Vec<DeliveryJob> {
        let (out, kept): (VecDeque<_>, VecDeque<_>) =
            self.waiting.drain(..).partition(|(job, claimed_at)| taken(job, *claimed_at));
        self.waiting = kept;
        out.into_iter()
            .map(|(job, _)| {
                self.claimed.finish(&job.delivery);
                job
            })
            .collect()
    }
}
