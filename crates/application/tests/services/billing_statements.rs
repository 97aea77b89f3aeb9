//! Billing statement and outbox services over in-memory fakes of every port: finalizing into an owned
//! intent that pays the statement, sending through the outbox, and the outbox's claims and retries.

use crate::support::card_payment;
use payments_application::ports::Clock;
use payments_application::services::{AttachOutcome, NewBillingStatement, NewLineItem, StatementPage};
use payments_application::testing::TestPorts;
use payments_application::{ApplicationError, Scope};
use payments_domain::account::Mode;
use payments_domain::billing_statement::BillingStatementStatus;
use payments_domain::customer::{BillingStatementPrefix, CustomerName, Email, NewCustomer};
use payments_domain::mail_message::{MailOutcome, MailStatus};
use payments_domain::money::Currency;
use payments_domain::time::Timestamp;

const DAY: i64 = 24 * 60 * 60;

/// An open statement of ₱50.00 for a new customer with the prefix `SVC`, due in ten days.
fn open_statement(ports: &TestPorts, scope: &Scope, mail_delivers: bool) -> StatementPage {
    let customer = ports
        .customer_service()
        .create(
            scope,
            NewCustomer {
                name: CustomerName::new("Ana".into()).unwrap(),
                email: Email::new("ana@example.com".into()).unwrap(),
                currency: Currency::Php,
                billing_statement_prefix: Some(BillingStatementPrefix::new("SVC".into()).unwrap()),
                next_billing_statement_sequence_number: None,
                billing: None,
                metadata: None,
            },
        )
        .unwrap();
    let service = ports.billing_statement_service(mail_delivers);
    let now = ports.clock.now().unix_seconds();
    let new = NewBillingStatement {
        customer_id: customer.id.clone(),
        currency: None,
        description: None,
        due_at: Some(Timestamp::from_unix_seconds(now + 10 * DAY)),
        billing_details_collection: None,
        payment_methods: None,
        statement_descriptor: None,
        metadata: None,
    };
    let draft = service.create(scope, new).unwrap();
    let id = draft.statement.id().to_string();
    let item =
        NewLineItem { billing_statement_id: id.clone(), description: "Plan".into(), unit_price: 5_000, quantity: 1 };
    service.add_line_item(scope, item).unwrap();
    let open = service.finalize(scope, &id).unwrap();
    service.page(open.statement.client_secret().reveal()).unwrap()
}

#[test]
fn paying_the_page_pays_the_statement_through_its_owned_intent() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let page = open_statement(&ports, &scope, false);
    let finalized = page.view.statement.finalization().unwrap();
    assert_eq!(finalized.number, "SVC-0001");
    assert!(page.payable() && !page.overdue);
    let service = ports.billing_statement_service(false);
    let outcome = service.pay(&page, card_payment()).unwrap();
    let AttachOutcome::Attached(view) = outcome else { panic!("declined") };
    assert_eq!(view.latest_payment.unwrap().origin(), "billing_statement");
    let paid = service.retrieve(&scope, page.view.statement.id().as_str()).unwrap();
    assert_eq!(paid.statement.status(), BillingStatementStatus::Paid);
    let again = service.pay(&page, card_payment());
    assert!(matches!(again, Err(ApplicationError::InvalidState(_))), "a paid page is not paid twice: {again:?}");
    // The statement's intent is the statement's to cancel.
    let intents = ports.payment_intent_service();
    let refused = intents.cancel(&scope, finalized.payment_intent_id.as_str());
    assert!(
        matches!(&refused, Err(ApplicationError::InvalidState(reason)) if reason.to_string().contains("billing statement"))
    );
}

#[test]
fn sending_queues_one_message_and_live_mode_needs_a_mail_server() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let page = open_statement(&ports, &scope, false);
    let service = ports.billing_statement_service(false);
    service.send(&scope, page.view.statement.id().as_str()).unwrap();
    let outbox = ports.mail_message_service();
    let queued = outbox.latest(&scope, 10).unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!((queued[0].status(), queued[0].content().to.as_str()), (MailStatus::Pending, "ana@example.com"));

    let live = ports.scope(Mode::Live);
    let live_page = open_statement(&ports, &live, false);
    let refused = service.send(&live, live_page.view.statement.id().as_str());
    assert!(matches!(&refused, Err(ApplicationError::NotConfigured(reason)) if reason.contains("mail server")));
    let with_server = ports.billing_statement_service(true);
    with_server.send(&live, live_page.view.statement.id().as_str()).unwrap();
    assert_eq!(outbox.latest(&live, 10).unwrap().len(), 1);
}

#[test]
fn the_outbox_claims_each_message_once_and_retries_a_failure_later() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let page = open_statement(&ports, &scope, true);
    ports.billing_statement_service(true).send(&scope, page.view.statement.id().as_str()).unwrap();
    let outbox = ports.mail_message_service();
    let claimed = outbox.claim_due(10, 30_000).unwrap();
    assert_eq!(claimed.len(), 1);
    assert!(outbox.claim_due(10, 30_000).unwrap().is_empty(), "claimed until its lease runs out");
    outbox.record(&claimed[0], &MailOutcome::Failed("connection refused".into())).unwrap();
    assert!(outbox.claim_due(10, 30_000).unwrap().is_empty(), "retried after its delay, not at once");
    ports.clock.advance(2);
    let retried = outbox.claim_due(10, 30_000).unwrap();
    assert_eq!((retried.len(), retried[0].last_error()), (1, Some("connection refused")));
    outbox.record(&retried[0], &MailOutcome::Sent).unwrap();
    outbox.record(&retried[0], &MailOutcome::Sent).unwrap();
    let sent = outbox.latest(&scope, 10).unwrap();
    assert_eq!((sent[0].status(), sent[0].attempts()), (MailStatus::Sent, 2), "a stale record is ignored");
    ports.clock.advance(3_600);
    assert!(outbox.claim_due(10, 30_000).unwrap().is_empty());
}
