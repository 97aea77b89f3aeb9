//! The event streams open in this instance (`GET /events/stream`), counted for each key and in all,
//! so that no key, and no crowd of keys, holds more than its share.

use crate::error::ApiError;
use crate::settings::EventStreamSettings;
use parking_lot::Mutex;
use payments_application::Scope;
use std::collections::HashMap;
use std::sync::Arc;

/// What a client refused a stream is told to wait.
const RETRY_AFTER_SECONDS: u64 = 10;

/// The streams open in this instance, counted per key and in all.
pub struct StreamSlots {
    settings: EventStreamSettings,
    open: Mutex<HashMap<Scope, usize>>,
}

impl StreamSlots {
    #[must_use]
    pub fn new(settings: EventStreamSettings) -> Self {
        Self { settings, open: Mutex::new(HashMap::new()) }
    }

    /// A slot for one more stream of `scope`, held until the stream ends.
    ///
    /// # Errors
    /// 429 `rate_limit_exceeded` with `Retry-After` when the key, or this instance, has as many
    /// streams open as it may.
    pub fn take(self: &Arc<Self>, scope: &Scope) -> Result<StreamSlot, ApiError> {
        let mut open = self.open.lock();
        if open.values().sum::<usize>() >= self.settings.max_per_instance {
            let limit = self.settings.max_per_instance;
            return Err(ApiError::too_many_streams("This instance", limit, RETRY_AFTER_SECONDS));
        }
        let of_key = open.entry(scope.clone()).or_default();
        if *of_key >= self.settings.max_per_key {
            return Err(ApiError::too_many_streams("This key", self.settings.max_per_key, RETRY_AFTER_SECONDS));
        }
        *of_key += 1;
        Ok(StreamSlot { slots: self.clone(), scope: scope.clone() })
    }

    /// How many streams are open, in all.
    #[must_use]
    pub fn open(&self) -> usize {
        self.open.lock().values().sum()
    }
}

/// One open stream's place among [`StreamSlots`], given back when it is dropped.
pub struct StreamSlot {
    slots: Arc<StreamSlots>,
    scope: Scope,
}

impl Drop for StreamSlot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock();
        if let Some(count) = open.get_mut(&self.scope) {
            *count -= 1;
            if *count == 0 {
                open.remove(&self.scope);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::ResponseError;
    use payments_domain::account::Mode;
    use payments_domain::ids::AccountId;

    fn scope(name: &str) -> Scope {
        Scope { account_id: AccountId::from_random(name), mode: Mode::Test }
    }

    #[test]
    fn slots_are_capped_per_key_and_in_all_and_given_back_when_a_stream_ends() {
        let slots = Arc::new(StreamSlots::new(EventStreamSettings { max_per_key: 2, max_per_instance: 3 }));
        let (a, b) = (scope("a"), scope("b"));
        let first = slots.take(&a).expect("one");
        let _second = slots.take(&a).expect("two");
        let refused = slots.take(&a).err().expect("a third of one key");
        assert_eq!(refused.status_code(), actix_web::http::StatusCode::TOO_MANY_REQUESTS);
        let _other = slots.take(&b).expect("another key's");
        assert!(slots.take(&b).is_err(), "the instance is full");
        drop(first);
        assert_eq!(slots.open(), 2);
        let _again = slots.take(&b).expect("a slot given back");
        assert_eq!(slots.open(), 3);
    }
}
