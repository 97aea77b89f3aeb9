//! Operational metrics in the Prometheus (OpenMetrics text) format, with `prometheus-client`:
//! requests by route, method and status with latency histograms; the connection pool's size, use
//! and waits; webhook deliveries pending, the oldest one's age and attempts by outcome; background
//! job lag; idempotency replays.
//!
//! Counters and histograms are recorded where the work happens; gauges of state that lives
//! elsewhere (the pool, the delivery backlog) are read when the metrics are rendered.

use crate::db::Pool;
use payments_application::ports::DeliveryBacklog;
use payments_domain::time::Timestamp;
use payments_domain::webhook_delivery::AttemptOutcome;
use prometheus_client::encoding::text::encode;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The media type of the rendered metrics.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Latency buckets in seconds, from half a millisecond to ten seconds.
const LATENCY_BUCKETS: [f64; 14] =
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0];
/// Lag buckets in seconds, from ten milliseconds to an hour.
const LAG_BUCKETS: [f64; 12] = [0.01, 0.05, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0];

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

fn lag_histogram() -> Histogram {
    Histogram::new(LAG_BUCKETS)
}

/// A request's labels: the route pattern (not the path, so ids do not multiply series).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    route: String,
    method: String,
    status: u16,
}

/// How a webhook delivery attempt ended: `delivered` (a 2xx answer in time), `rejected` (another
/// status) or `unreachable` (no answer: refused, timed out, or not allowed to be sent).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AttemptLabels {
    outcome: &'static str,
}

/// A background job whose lag is measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackgroundJob {
    WebhookDelivery,
}

impl BackgroundJob {
    const fn label(self) -> &'static str {
        match self {
            Self::WebhookDelivery => "webhook_delivery",
        }
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct JobLabels {
    job: &'static str,
}

type RequestFamily = Family<RequestLabels, Histogram, fn() -> Histogram>;
type JobFamily = Family<JobLabels, Histogram, fn() -> Histogram>;

/// Connections the HTTP server closed on a protocol error (malformed HTTP, a request cut short).
/// Counted for the whole process, whose log subscriber sees them, and shown by every instance's
/// metrics.
#[must_use]
pub fn connection_errors() -> &'static Counter {
    static CONNECTION_ERRORS: std::sync::LazyLock<Counter> = std::sync::LazyLock::new(Counter::default);
    &CONNECTION_ERRORS
}

/// Every metric of one instance, and the registry that renders them.
pub struct Metrics {
    registry: Registry,
    requests: RequestFamily,
    pool_max: Gauge,
    pool_open: Gauge,
    pool_in_use: Gauge,
    pool_wait: Histogram,
    pool_timeouts: Counter,
    deliveries_pending: Gauge,
    oldest_pending_age: Gauge<f64, AtomicU64>,
    attempts: Family<AttemptLabels, Counter>,
    job_lag: JobFamily,
    due_actions_last_run: Gauge<f64, AtomicU64>,
    idempotent_replays: Counter,
    request_log_written: Counter,
    request_log_dropped: Counter,
    pool: OnceLock<Pool>,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Registers every metric, all at zero.
    #[must_use]
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("payments");
        let requests = RequestFamily::new_with_constructor(latency_histogram);
        registry.register(
            "http_request_duration_seconds",
            "Time from a request's arrival to its answer, by route pattern, method and status",
            requests.clone(),
        );
        let [pool_max, pool_open, pool_in_use] = [Gauge::default(), Gauge::default(), Gauge::default()];
        registry.register("db_pool_max_connections", "Connections the pool may open", pool_max.clone());
        registry.register("db_pool_connections", "Connections the pool holds open", pool_open.clone());
        registry.register("db_pool_connections_in_use", "Connections checked out of the pool", pool_in_use.clone());
        let pool_wait = latency_histogram();
        registry.register(
            "db_pool_wait_seconds",
            "How long a checkout waited for a connection of the pool",
            pool_wait.clone(),
        );
        let pool_timeouts = Counter::default();
        registry.register(
            "db_pool_timeouts",
            "Checkouts that found no connection in time (answered 503)",
            pool_timeouts.clone(),
        );
        let deliveries_pending = Gauge::default();
        registry.register(
            "webhook_deliveries_pending",
            "Webhook deliveries not yet delivered or given up, retries included",
            deliveries_pending.clone(),
        );
        let oldest_pending_age = Gauge::default();
        registry.register(
            "webhook_oldest_pending_age_seconds",
            "Age of the oldest pending webhook delivery (0 when none is pending)",
            oldest_pending_age.clone(),
        );
        let attempts = Family::default();
        registry.register(
            "webhook_delivery_attempts",
            "Webhook delivery attempts by outcome: delivered (2xx), rejected (another status), unreachable",
            attempts.clone(),
        );
        let job_lag = JobFamily::new_with_constructor(lag_histogram);
        registry.register(
            "background_job_lag_seconds",
            "How late a background job started after it was due",
            job_lag.clone(),
        );
        let due_actions_last_run = Gauge::default();
        registry.register(
            "due_actions_last_run_timestamp_seconds",
            "When this instance last finished a run of the due actions (expiries, timeouts, reminders)",
            due_actions_last_run.clone(),
        );
        let idempotent_replays = Counter::default();
        registry.register(
            "idempotent_replays",
            "Requests answered with the stored response of an earlier request with the same Idempotency-Key",
            idempotent_replays.clone(),
        );
        let [request_log_written, request_log_dropped] = [Counter::default(), Counter::default()];
        registry.register("request_log_written", "Requests written to the request log", request_log_written.clone());
        registry.register(
            "request_log_dropped",
            "Requests left out of the request log because its queue was full or a write failed",
            request_log_dropped.clone(),
        );
        registry.register(
            "http_connection_errors",
            "Connections closed on a protocol error, such as malformed HTTP or a request cut short (logged at debug)",
            connection_errors().clone(),
        );
        Self {
            registry,
            requests,
            pool_max,
            pool_open,
            pool_in_use,
            pool_wait,
            pool_timeouts,
            deliveries_pending,
            oldest_pending_age,
            attempts,
            job_lag,
            due_actions_last_run,
            idempotent_replays,
            request_log_written,
            request_log_dropped,
            pool: OnceLock::new(),
        }
    }

    /// Reads the pool's size and use from `pool` when rendering.
    pub fn watch_pool(&self, pool: Pool) {
        let _already_watched = self.pool.set(pool);
    }

    /// The pool events to give to r2d2 (waits and timeouts of checkouts).
    #[must_use]
    pub fn pool_events(self: &Arc<Self>) -> Box<dyn r2d2::HandleEvent> {
        Box::new(PoolEvents(self.clone()))
    }

    /// One answered request: `route` is the matched pattern, or `unmatched`.
    pub fn request(&self, route: &str, method: &str, status: u16, elapsed: Duration) {
        let labels = RequestLabels { route: route.to_owned(), method: method.to_owned(), status };
        self.requests.get_or_create(&labels).observe(elapsed.as_secs_f64());
    }

    /// One webhook delivery attempt.
    pub fn webhook_attempt(&self, outcome: &AttemptOutcome) {
        let outcome = match (outcome.delivered(), outcome.status_code) {
            (true, _) => "delivered",
            (false, Some(_)) => "rejected",
            (false, None) => "unreachable",
        };
        self.attempts.get_or_create(&AttemptLabels { outcome }).inc();
    }

    /// A job due at `due` started at `now`.
    pub fn job_started(&self, job: BackgroundJob, due: Timestamp, now: Timestamp) {
        let lag_ms = now.unix_millis().saturating_sub(due.unix_millis()).max(0);
        #[allow(clippy::cast_precision_loss)] // milliseconds far below 2^52
        self.job_lag.get_or_create(&JobLabels { job: job.label() }).observe(lag_ms as f64 / 1_000.0);
    }

    /// A run of the due actions finished at `now`.
    pub fn due_actions_ran(&self, now: Timestamp) {
        #[allow(clippy::cast_precision_loss)]
        self.due_actions_last_run.set(now.unix_millis() as f64 / 1_000.0);
    }

    /// A request answered from an idempotency record.
    pub fn idempotent_replay(&self) {
        self.idempotent_replays.inc();
    }

    /// `count` requests written to the request log.
    pub fn request_log_written(&self, count: usize) {
        self.request_log_written.inc_by(count as u64);
    }

    /// `count` requests left out of the request log.
    pub fn request_log_dropped(&self, count: usize) {
        self.request_log_dropped.inc_by(count as u64);
    }

    /// The metrics as OpenMetrics text, with the pool's state and `backlog` read now.
    #[must_use]
    pub fn render(&self, backlog: &DeliveryBacklog, now: Timestamp) -> String {
        if let Some(pool) = self.pool.get() {
            let state = pool.state();
            self.pool_max.set(i64::from(pool.max_size()));
            self.pool_open.set(i64::from(state.connections));
            self.pool_in_use.set(i64::from(state.connections.saturating_sub(state.idle_connections)));
        }
        self.deliveries_pending.set(backlog.pending);
        let oldest_ms = backlog.oldest_created_at.map_or(0, |at| now.unix_millis().saturating_sub(at.unix_millis()));
        #[allow(clippy::cast_precision_loss)]
        self.oldest_pending_age.set(oldest_ms.max(0) as f64 / 1_000.0);
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _written = encode(&mut text, &self.registry);
        text
    }
}

/// Feeds r2d2's checkout events into the pool metrics.
struct PoolEvents(Arc<Metrics>);

impl std::fmt::Debug for PoolEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PoolEvents")
    }
}

impl r2d2::HandleEvent for PoolEvents {
    fn handle_checkout(&self, event: r2d2::event::CheckoutEvent) {
        self.0.pool_wait.observe(event.duration().as_secs_f64());
    }

    fn handle_timeout(&self, _event: r2d2::event::TimeoutEvent) {
        self.0.pool_timeouts.inc();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_metric_renders_with_its_labels() {
        let metrics = Metrics::new();
        metrics.request("/payment_intents/{id}", "GET", 200, Duration::from_millis(3));
        metrics.webhook_attempt(&AttemptOutcome {
            status_code: Some(200),
            error: None,
            duration_ms: 1,
            response_excerpt: None,
        });
        metrics.webhook_attempt(&AttemptOutcome {
            status_code: Some(500),
            error: None,
            duration_ms: 1,
            response_excerpt: None,
        });
        metrics.webhook_attempt(&AttemptOutcome {
            status_code: None,
            error: Some("refused".into()),
            duration_ms: 1,
            response_excerpt: None,
        });
        metrics.job_started(
            BackgroundJob::WebhookDelivery,
            Timestamp::from_unix_millis(1_000),
            Timestamp::from_unix_millis(1_250),
        );
        metrics.idempotent_replay();
        let backlog = DeliveryBacklog { pending: 3, oldest_created_at: Some(Timestamp::from_unix_millis(1_000)) };
        let text = metrics.render(&backlog, Timestamp::from_unix_millis(61_000));
        for line in [
            r#"payments_http_request_duration_seconds_count{route="/payment_intents/{id}",method="GET",status="200"} 1"#,
            r#"payments_webhook_delivery_attempts_total{outcome="delivered"} 1"#,
            r#"payments_webhook_delivery_attempts_total{outcome="rejected"} 1"#,
            r#"payments_webhook_delivery_attempts_total{outcome="unreachable"} 1"#,
            r#"payments_background_job_lag_seconds_bucket{le="0.5",job="webhook_delivery"} 1"#,
            r#"payments_background_job_lag_seconds_bucket{le="0.1",job="webhook_delivery"} 0"#,
            "payments_webhook_deliveries_pending 3",
            "payments_webhook_oldest_pending_age_seconds 60.0",
            "payments_idempotent_replays_total 1",
            "# EOF",
        ] {
            assert!(text.lines().any(|rendered| rendered == line), "{line} missing from:\n{text}");
        }
    }
}
