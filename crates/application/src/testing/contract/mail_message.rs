//! The mail outbox: messages queued, claimed and listed.

use super::*;

/// Mail number `n` of `scope`, due `at_offset` seconds after the contract's start time.
#[must_use]
pub fn mail(scope: &Scope, n: u32, at_offset: i64) -> MailMessage {
    let content = MailContent {
        from: "billing@shop.example".into(),
        to: format!("c{n}@example.com"),
        subject: format!("Statement {n}"),
        message_id: format!("<m{n}@shop.example>"),
        text: "text".into(),
        html: "<p>html</p>".into(),
    };
    let id = MailMessageId::from_random(&format!("m{n}{}", scope.account_id.as_str().len()));
    MailMessage::create(id, scope.account_id.clone(), scope.livemode(), None, content, at(at_offset))
}

pub fn mail_messages_are_queued_claimed_and_listed(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first, second) = (mail(&scope, 1, 0), mail(&scope, 2, 5));
    write(store, |r| r.mail_messages().insert(&first));
    write(store, |r| r.mail_messages().insert(&second));
    assert_eq!(read(store, |r| r.mail_messages().due(at(1), 10)), vec![first.clone()]);
    assert_eq!(read(store, |r| r.mail_messages().due(at(5), 10)), vec![first.clone(), second.clone()]);

    let mut claimed = first.clone();
    assert!(claimed.claim(at(6), at(60)));
    write(store, |r| r.mail_messages().update(&claimed, first.version()));
    let lost = in_transaction(store, |r| Ok(r.mail_messages().update(&claimed, first.version())?));
    assert!(matches!(lost, Err(ApplicationError::Conflict)), "a second claim loses: {lost:?}");
    assert_eq!(read(store, |r| r.mail_messages().due(at(6), 10)), vec![second.clone()], "claimed until its lease ends");
    let mut sent = claimed.clone();
    let schedule = RetrySchedule { base_ms: 1_000, cap_ms: 10_000, jitter: 0.0, give_up_after_ms: 60_000 };
    sent.record(&MailOutcome::Sent, &schedule, at(7), 0.0);
    write(store, |r| r.mail_messages().update(&sent, claimed.version()));
    assert_eq!(read(store, |r| r.mail_messages().due(at(1_000), 10)), vec![second.clone()]);
    let latest = read(store, |r| r.mail_messages().latest(&scope, 10));
    assert_eq!(latest, vec![second.clone(), sent.clone()], "newest first");
    assert_eq!(latest[1].status(), MailStatus::Sent);
    let elsewhere = account(store, "other");
    assert!(read(store, |r| r.mail_messages().latest(&elsewhere, 10)).is_empty());
}
