//! The events live processors sent: kept once, found, due until acted on.

use super::*;
use payments_domain::processor_event::{EventObject, ProcessorEvent};

pub fn processor_events_are_kept_once_and_due_until_processed(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let tenant = (scope.account_id.clone(), scope.livemode());
    let first =
        ProcessorEvent::received(("conn_1", "evt_1"), tenant.clone(), EventObject::Payment("pi_1".into()), at(0));
    let second = ProcessorEvent::received(("conn_1", "evt_2"), tenant, EventObject::Refund("re_1".into()), at(5));
    write(store, |r| r.processor_events().insert(&first));
    write(store, |r| r.processor_events().insert(&second));
    write(store, |r| r.processor_events().insert(&first));
    assert_eq!(read(store, |r| r.processor_events().unprocessed(None, 10)), vec![first.clone(), second.clone()]);
    assert_eq!(read(store, |r| r.processor_events().find(&scope, &first.id)), Some(first.clone()));
    write(store, |r| r.processor_events().mark_processed(&scope, &first.id, at(7)));
    assert_eq!(read(store, |r| r.processor_events().unprocessed(Some(&scope), 10)), vec![second.clone()]);
    let processed = read(store, |r| r.processor_events().find(&scope, &first.id)).unwrap();
    assert_eq!(processed.processed_at, Some(at(7)));
    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.processor_events().find(&elsewhere, &second.id)), None);
    assert!(read(store, |r| r.processor_events().unprocessed(Some(&elsewhere), 10)).is_empty());
}
