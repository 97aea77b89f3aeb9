//! Tells this instance's event streams that events were appended, so that a stream reads when there
//! is something to read instead of looking every moment.
//!
//! On SQLite (one instance) the unit of work's commits tell it. On PostgreSQL every unit of work that
//! appends events notifies the channel `payments_events` as it commits, in its own statement
//! (`crate::db::write_batch`), and one connection of each instance listens: a stream hears what any
//! instance appended, and never an event that was rolled back.

use crate::db::{appended_scope, Backend, DatabaseUrl, Queued, APPENDED_CHANNEL};
use diesel::connection::SimpleConnection;
use diesel::PgConnection;
use payments_application::ports::Appended;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// Signals a slow stream may fall behind by before it is told it lagged (and reads anyway).
const CAPACITY: usize = 1024;
/// How often the listening connection looks at what arrived on its socket (nothing is sent to the
/// server for it).
const LISTEN_INTERVAL: Duration = Duration::from_millis(25);
/// How often the listening connection asks the server whether it is still there.
const CHECK_INTERVAL: Duration = Duration::from_secs(30);
/// The longest wait before connecting again after the listening connection failed.
const MAX_RECONNECT_DELAY: Duration = Duration::from_secs(30);

/// The signal, shared by the streams of one instance.
#[derive(Clone)]
pub struct EventSignal {
    inner: Arc<Inner>,
}

struct Inner {
    sender: broadcast::Sender<Appended>,
    /// Whether the database tells the streams (PostgreSQL), so this instance's commits need not.
    told_by_the_database: bool,
}

impl EventSignal {
    /// A signal for `url`'s database. On PostgreSQL it listens on a connection of its own, on a
    /// thread of its own, for as long as a clone of the signal lives.
    #[must_use]
    pub fn for_database(url: &DatabaseUrl) -> Self {
        let listening = url.backend() == Backend::Postgres;
        let signal =
            Self { inner: Arc::new(Inner { sender: broadcast::channel(CAPACITY).0, told_by_the_database: listening }) };
        if listening {
            let (url, inner) = (url.clone(), Arc::downgrade(&signal.inner));
            let spawned = std::thread::Builder::new().name("event-listener".into()).spawn(move || listen(&url, &inner));
            if let Err(error) = spawned {
                tracing::warn!(%error, "event streams cannot listen for events; they look for them every few seconds");
            }
        }
        signal
    }

    /// A signal told only by this instance's commits.
    #[must_use]
    pub fn in_process() -> Self {
        Self { inner: Arc::new(Inner { sender: broadcast::channel(CAPACITY).0, told_by_the_database: false }) }
    }

    /// What a stream waits on.
    #[must_use]
    pub fn subscribe(&self) -> broadcast::Receiver<Appended> {
        self.inner.sender.subscribe()
    }

    /// Tells the streams what a commit of this instance appended, unless the database tells them.
    pub fn committed(&self, queued: &Queued) {
        if self.inner.told_by_the_database {
            return;
        }
        for scope in &queued.events_in {
            // No stream open: nobody to tell.
            let _ = self.inner.sender.send(Appended::To(scope.clone()));
        }
    }
}

/// Listens on `url` until the signal is gone, connecting again (and telling every stream to look)
/// whenever the connection fails.
fn listen(url: &DatabaseUrl, signal: &Weak<Inner>) {
    let mut delay = Duration::from_millis(250);
    loop {
        let connected = url.open_postgres().map(|opened| {
            let mut connection = opened.map_err(|error| error.to_string())?;
            connection.batch_execute(&format!("LISTEN {APPENDED_CHANNEL}")).map_err(|error| error.to_string())?;
            Ok::<_, String>(connection)
        });
        let Some(inner) = signal.upgrade() else { return };
        match connected {
            Some(Ok(mut connection)) => {
                delay = Duration::from_millis(250);
                // Whatever was appended while no one listened.
                let _ = inner.sender.send(Appended::Anywhere);
                drop(inner);
                if !hear(&mut connection, signal) {
                    return;
                }
            }
            Some(Err(error)) => tracing::warn!(%error, "event streams cannot listen for events; connecting again"),
            None => return,
        }
        std::thread::sleep(delay);
        delay = (delay * 2).min(MAX_RECONNECT_DELAY);
    }
}

/// Passes on what `connection` hears; returns `false` once the signal is gone, `true` when the
/// connection failed.
fn hear(connection: &mut PgConnection, signal: &Weak<Inner>) -> bool {
    let mut checked = Instant::now();
    loop {
        let Some(inner) = signal.upgrade() else { return false };
        for heard in connection.notifications_iter() {
            match heard {
                Ok(notification) => {
                    if let Some(scope) = appended_scope(&notification.payload) {
                        let _ = inner.sender.send(Appended::To(scope));
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "the connection event streams listen on failed");
                    return true;
                }
            }
        }
        if checked.elapsed() >= CHECK_INTERVAL {
            if let Err(error) = connection.batch_execute("SELECT 1") {
                tracing::warn!(%error, "the connection event streams listen on failed");
                return true;
            }
            checked = Instant::now();
        }
        drop(inner);
        std::thread::sleep(LISTEN_INTERVAL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::appended_payload;
    use payments_application::Scope;
    use payments_domain::account::Mode;
    use payments_domain::ids::AccountId;

    #[test]
    fn a_notification_names_an_account_and_a_mode() {
        let scope = appended_scope("acct_abc:live").expect("a scope");
        assert_eq!(appended_payload(&scope), "acct_abc:live");
        assert_eq!((scope.account_id.as_str(), scope.mode), ("acct_abc", Mode::Live));
        assert_eq!(appended_scope("acct_abc:test").map(|scope| scope.mode), Some(Mode::Test));
        for payload in ["acct_abc", "acct_abc:other", "cus_abc:test", ":test", ""] {
            assert!(appended_scope(payload).is_none(), "{payload}");
        }
    }

    #[tokio::test]
    async fn a_commit_tells_the_streams_of_its_scopes_only_when_the_database_does_not() {
        let scope = Scope { account_id: AccountId::from_random("a"), mode: Mode::Test };
        let queued = Queued { deliveries: false, mail: false, events_in: vec![scope.clone()] };
        let signal = EventSignal::in_process();
        let mut stream = signal.subscribe();
        signal.committed(&queued);
        let heard = stream.recv().await.expect("a signal");
        assert!(heard.concerns(&scope));
        let other = Scope { account_id: AccountId::from_random("b"), mode: Mode::Test };
        assert!(!heard.concerns(&other));
        assert!(!heard.concerns(&Scope { mode: Mode::Live, ..scope.clone() }));

        let listened =
            EventSignal { inner: Arc::new(Inner { sender: broadcast::channel(4).0, told_by_the_database: true }) };
        let mut stream = listened.subscribe();
        listened.committed(&queued);
        assert!(stream.try_recv().is_err(), "the database tells it");
    }
}
