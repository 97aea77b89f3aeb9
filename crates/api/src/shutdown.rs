//! Stopping gracefully. SIGTERM or SIGINT begins it: the server stops accepting connections and
//! gives the requests in flight the grace period (`server.shutdown_grace_seconds`) to finish; event
//! streams end so their clients resume elsewhere; `/readyz` answers 503; the webhook and e-mail
//! workers stop claiming, finish what they are sending and give back the deliveries they had claimed
//! and not sent, so another instance takes them at once rather than after their lease.

use std::sync::Arc;
use tokio::sync::watch;

/// Whether this instance is stopping, for everything that must wind down when it does.
#[derive(Debug, Clone)]
pub struct Stopping {
    begun: Arc<watch::Sender<bool>>,
}

impl Default for Stopping {
    fn default() -> Self {
        Self { begun: Arc::new(watch::Sender::new(false)) }
    }
}

impl Stopping {
    /// Begins stopping; everything waiting on [`Stopping::begun`] wakes.
    pub fn begin(&self) {
        self.begun.send_replace(true);
    }

    /// Whether stopping has begun.
    #[must_use]
    pub fn has_begun(&self) -> bool {
        *self.begun.borrow()
    }

    /// Returns once stopping has begun.
    pub async fn begun(&self) {
        let mut watching = self.begun.subscribe();
        // The sender lives as long as `self`, so waiting ends only when stopping begins.
        let _ = watching.wait_for(|begun| *begun).await;
    }
}

/// Returns when the process is asked to stop: SIGTERM (an orchestrator) or SIGINT (Ctrl-C).
pub async fn signalled() {
    #[cfg(unix)]
    {
        let terminate = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut terminate) => {
                    terminate.recv().await;
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot listen for SIGTERM; only SIGINT stops the service gracefully");
                    std::future::pending::<()>().await;
                }
            }
        };
        tokio::select! {
            () = terminate => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = tokio::signal::ctrl_c().await;
}
