//! An event a live processor sent about an account's payment or refund. It is kept once, by the
//! processor's event id, answered at once, and acted on later: the object it names is fetched again
//! from the processor, whose answer is the truth. Its body is never trusted, nor kept.

use crate::ids::AccountId;
use crate::time::Timestamp;

/// What a processor's event is about, by the processor's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventObject {
    Payment(String),
    Refund(String),
}

impl EventObject {
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Payment(_) => "payment",
            Self::Refund(_) => "refund",
        }
    }

    #[must_use]
    pub fn reference(&self) -> &str {
        match self {
            Self::Payment(reference) | Self::Refund(reference) => reference,
        }
    }

    #[must_use]
    pub fn parse(kind: &str, reference: String) -> Option<Self> {
        match kind {
            "payment" => Some(Self::Payment(reference)),
            "refund" => Some(Self::Refund(reference)),
            _ => None,
        }
    }
}

/// An event received.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcessorEvent {
    /// The connector's id and the processor's event id: an event is kept once.
    pub id: String,
    pub account_id: AccountId,
    pub livemode: bool,
    pub object: EventObject,
    pub received_at: Timestamp,
    /// When it was acted on; until then it is due.
    pub processed_at: Option<Timestamp>,
}

impl ProcessorEvent {
    /// The event `event_id` that the connector `connector` received at `now`.
    #[must_use]
    pub fn received(
        (connector, event_id): (&str, &str),
        (account_id, livemode): (AccountId, bool),
        object: EventObject,
        now: Timestamp,
    ) -> Self {
        Self {
            id: format!("{connector}:{event_id}"),
            account_id,
            livemode,
            object,
            received_at: now,
            processed_at: None,
        }
    }

    /// The processor's own id for the event, without the connector's (which is the capability of
    /// the address events come to, and is never logged).
    #[must_use]
    pub fn processor_event_id(&self) -> &str {
        self.id.split_once(':').map_or(self.id.as_str(), |(_, event)| event)
    }

    /// Whether an event whose object cannot be fetched is let go at `now`: an hour after it came.
    /// An event only says where to look; what it would settle is settled anyway, by the janitor's
    /// checks of unanswered operations, the return page, or an authentication's expiry, all of
    /// which ask the processor themselves. Until then it is tried again at each run.
    #[must_use]
    pub fn is_let_go_at(&self, now: Timestamp) -> bool {
        now >= self.received_at.plus_seconds(LET_GO_SECONDS)
    }
}

/// How long an event whose object cannot be fetched is tried again.
const LET_GO_SECONDS: i64 = 3_600;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_processors_event_id_is_told_without_the_connectors() {
        let event = ProcessorEvent::received(
            ("conn_0VcKRLxCJeUzS3dfAVJZjOW6tPNtjH8b", "evt_1"),
            (AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8"), true),
            EventObject::Payment("pi_1".to_owned()),
            Timestamp::from_unix_seconds(0),
        );
        assert_eq!(event.processor_event_id(), "evt_1");
        assert!(!event.is_let_go_at(Timestamp::from_unix_seconds(3_599)));
        assert!(event.is_let_go_at(Timestamp::from_unix_seconds(3_600)));
    }
}
