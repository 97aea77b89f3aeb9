//! The billing statement state machine: every operation from every status, allowed or refused; the
//! total kept as the sum of the line items within the bounds of an amount; the customer's numbers;
//! and the due-date reminders, each once.

use payments_domain::billing_statement::{
    BillingStatement, BillingStatementStatus, DueNotice, Finalization, LineItem, LineItemChanges, StatementChanges,
    StatementDetails, DUE_NOTICE_SECONDS, MAX_LINE_ITEMS,
};
use payments_domain::checkout_session::BillingDetailsCollection;
use payments_domain::customer::{BillingStatementPrefix, Customer, CustomerName, Email, NewCustomer, SequenceNumber};
use payments_domain::error::DomainError;
use payments_domain::ids::{
    AccountId, BillingStatementId, BillingStatementLineItemId, ClientSecret, CustomerId, PaymentIntentId,
};
use payments_domain::metadata::Metadata;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::time::Timestamp;
use payments_domain::validation::ErrorCode;
use proptest::prelude::*;
use BillingStatementStatus::{Draft, Open, Paid, Uncollectible, Void};

const START: i64 = 1_700_000_000;
const DAY: i64 = 24 * 60 * 60;

fn at(offset: i64) -> Timestamp {
    Timestamp::from_unix_seconds(START + offset)
}

fn item(name: &str, unit_price: i64, quantity: i64) -> LineItem {
    LineItem {
        id: BillingStatementLineItemId::from_random(name),
        description: name.to_owned(),
        unit_price,
        quantity,
        created_at: at(0),
        updated_at: at(0),
    }
}

fn draft() -> BillingStatement {
    let id = BillingStatementId::from_random("statement");
    let details = StatementDetails {
        currency: Currency::Php,
        description: None,
        due_at: Some(at(10 * DAY)),
        billing_details_collection: BillingDetailsCollection::Always,
        payment_methods: vec![PaymentMethodType::Card],
        statement_descriptor: None,
        metadata: None,
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    let mut statement = BillingStatement::create(
        id,
        AccountId::from_random("acct"),
        false,
        CustomerId::from_random("cus"),
        secret,
        details,
        at(0),
    );
    statement.add_line_item(item("work", 5_000, 1), at(0)).unwrap();
    statement
}

fn finalization() -> Finalization {
    Finalization {
        number: "ACME-0001".into(),
        payment_intent_id: PaymentIntentId::from_random("pi"),
        url: "u".into(),
        finalized_at: Timestamp::from_unix_seconds(1_700_000_000),
    }
}

/// A statement brought to `status` through its transitions.
fn statement_in(status: BillingStatementStatus) -> BillingStatement {
    let mut statement = draft();
    if status != Draft {
        statement.finalize(finalization(), at(1)).unwrap();
    }
    match status {
        Draft | Open => {}
        Paid => statement.pay(at(2)).unwrap(),
        Void => statement.void(at(2)).unwrap(),
        Uncollectible => statement.mark_uncollectible(at(2)).unwrap(),
    }
    assert_eq!(statement.status(), status);
    statement
}

type Operation = fn(&mut BillingStatement) -> Result<(), DomainError>;

fn operations() -> Vec<(&'static str, Operation, &'static [BillingStatementStatus])> {
    vec![
        ("add a line item", |s| s.add_line_item(item("more", 100, 1), at(5)), &[Draft]),
        (
            "update a line item",
            |s| {
                s.update_line_item(&BillingStatementLineItemId::from_random("work"), LineItemChanges::default(), at(5))
                    .map(|_| ())
            },
            &[Draft],
        ),
        (
            "delete a line item",
            |s| s.remove_line_item(&BillingStatementLineItemId::from_random("work"), at(5)).map(|_| ()),
            &[Draft],
        ),
        (
            "update the description",
            |s| {
                s.update(
                    StatementChanges { description: None, due_at: Some(at(20 * DAY)), ..StatementChanges::default() },
                    at(5),
                )
            },
            &[Draft],
        ),
        (
            "update the metadata",
            |s| {
                s.update(StatementChanges { metadata: Some(Metadata::default()), ..StatementChanges::default() }, at(5))
            },
            &[Draft, Open, Paid, Void, Uncollectible],
        ),
        ("finalize", |s| s.finalize(finalization(), at(5)), &[Draft]),
        ("delete", |s| s.ensure_deletable(), &[Draft]),
        ("send", |s| s.ensure_open("send"), &[Open]),
        ("pay", |s| s.pay(at(5)), &[Open]),
        ("void", |s| s.void(at(5)), &[Open]),
        ("mark uncollectible", |s| s.mark_uncollectible(at(5)), &[Open]),
    ]
}

#[test]
fn every_operation_from_every_status_is_allowed_or_refused_as_the_table_says() {
    for status in BillingStatementStatus::ALL {
        for (name, operation, allowed_from) in operations() {
            let mut statement = statement_in(status);
            let before = statement.clone();
            let outcome = operation(&mut statement);
            if allowed_from.contains(&status) {
                assert!(outcome.is_ok(), "{name} from {status:?}: {outcome:?}");
            } else {
                assert!(
                    matches!(outcome, Err(DomainError::InvalidState { status: refused, .. }) if refused == status.as_str()),
                    "{name} from {status:?} must be refused naming the status: {outcome:?}"
                );
                assert_eq!(statement, before, "{name} from {status:?} changed nothing");
            }
        }
    }
}

#[test]
fn the_url_shows_only_while_open_and_finalizing_needs_a_due_date_and_a_total_in_bounds() {
    assert_eq!(statement_in(Draft).url(), None);
    assert_eq!(statement_in(Open).url(), Some("u"));
    for status in [Paid, Void, Uncollectible] {
        assert_eq!(statement_in(status).url(), None, "{status:?}");
        assert_eq!(statement_in(status).finalization().map(|f| f.number.as_str()), Some("ACME-0001"));
    }
    let mut small = draft();
    small
        .update_line_item(
            &BillingStatementLineItemId::from_random("work"),
            LineItemChanges { unit_price: Some(1_999), ..LineItemChanges::default() },
            at(1),
        )
        .unwrap();
    let refused = small.finalize(finalization(), at(1)).unwrap_err();
    assert!(
        matches!(&refused, DomainError::Invalid(e) if e.parameter == "amount" && e.code == ErrorCode::ParameterBelowMinimum),
        "{refused:?}"
    );
    let mut undated = draft();
    undated.update(StatementChanges::default(), at(1)).unwrap();
    let mut undated = BillingStatement::restore(payments_domain::billing_statement::StoredBillingStatement {
        details: StatementDetails { due_at: None, ..undated.details().clone() },
        ..undated.stored()
    });
    let refused = undated.finalize(finalization(), at(1)).unwrap_err();
    assert!(
        matches!(&refused, DomainError::Invalid(e) if e.parameter == "due_at" && e.code == ErrorCode::ParameterRequired),
        "{refused:?}"
    );
    let mut late = draft();
    let refused = late.finalize(finalization(), at(11 * DAY)).unwrap_err();
    assert!(
        matches!(&refused, DomainError::Invalid(e) if e.parameter == "due_at" && e.code == ErrorCode::ParameterBelowMinimum),
        "{refused:?}"
    );
    assert_eq!(late.status(), Draft);
}

#[test]
fn line_items_are_capped_and_the_total_never_passes_the_largest_amount() {
    let mut statement = draft();
    for n in 1..MAX_LINE_ITEMS {
        statement.add_line_item(item(&format!("i{n}"), 1, 1), at(1)).unwrap();
    }
    let refused = statement.add_line_item(item("one too many", 1, 1), at(1)).unwrap_err();
    assert!(matches!(&refused, DomainError::Invalid(e) if e.parameter == "billing_statement_id"), "{refused:?}");
    let mut big = draft();
    let refused = big.add_line_item(item("huge", Amount::MAXIMUM, 2), at(1)).unwrap_err();
    assert!(matches!(&refused, DomainError::Invalid(e) if e.code == ErrorCode::ParameterAboveMaximum), "{refused:?}");
    assert_eq!(big.amount(), 5_000, "a refused line item changes nothing");
}

proptest! {
    #[test]
    fn the_amount_is_always_the_sum_of_the_line_items(
        edits in proptest::collection::vec((0_u8..3, 1_i64..=Amount::MAXIMUM, 1_i64..=Amount::MAXIMUM), 1..30)
    ) {
        let mut statement = draft();
        for (n, (kind, price, quantity)) in edits.into_iter().enumerate() {
            let ids: Vec<BillingStatementLineItemId> = statement.line_items().iter().map(|i| i.id.clone()).collect();
            let _ = match (kind, ids.first()) {
                (1, Some(id)) => statement
                    .update_line_item(id, LineItemChanges { unit_price: Some(price), quantity: Some(quantity), ..LineItemChanges::default() }, at(1))
                    .map(|_| ()),
                (2, Some(id)) => statement.remove_line_item(id, at(1)).map(|_| ()),
                _ => statement.add_line_item(item(&format!("p{n}"), price, quantity), at(1)),
            };
            let sum: i128 = statement.line_items().iter().map(|i| i128::from(i.unit_price) * i128::from(i.quantity)).sum();
            prop_assert_eq!(i128::from(statement.amount()), sum);
            prop_assert!(statement.amount() <= Amount::MAXIMUM);
        }
    }
}

fn customer_at(next: i64) -> Customer {
    let new = NewCustomer {
        name: CustomerName::new("Juan".into()).unwrap(),
        email: Email::new("juan@example.com".into()).unwrap(),
        currency: Currency::Php,
        billing_statement_prefix: Some(BillingStatementPrefix::new("ACME".into()).unwrap()),
        next_billing_statement_sequence_number: Some(SequenceNumber::new(next).unwrap()),
        billing: None,
        metadata: None,
    };
    Customer::create(
        CustomerId::from_random("cus"),
        AccountId::from_random("acct"),
        false,
        new,
        BillingStatementPrefix::new("GENERATED".into()).unwrap(),
        at(0),
    )
}

#[test]
fn numbers_are_the_prefix_and_the_zero_padded_sequence_which_advances() {
    let mut customer = customer_at(1);
    let version = customer.version;
    assert_eq!(BillingStatement::take_number(&mut customer, at(1)).unwrap(), "ACME-0001");
    assert_eq!(BillingStatement::take_number(&mut customer, at(1)).unwrap(), "ACME-0002");
    assert_eq!((customer.next_billing_statement_sequence_number.value(), customer.version), (3, version + 2));
    let mut large = customer_at(123_456);
    assert_eq!(BillingStatement::take_number(&mut large, at(1)).unwrap(), "ACME-123456");
    let mut exhausted = customer_at(SequenceNumber::MAXIMUM);
    assert!(BillingStatement::take_number(&mut exhausted, at(1)).is_err());
}

#[test]
fn each_reminder_comes_once_will_be_due_five_days_before_and_overdue_five_days_after() {
    let due = 10 * DAY;
    let mut statement = statement_in(Open);
    assert_eq!(statement.next_notice_at(), Some(at(due - DUE_NOTICE_SECONDS)));
    assert_eq!(statement.take_due_notice(at(due - DUE_NOTICE_SECONDS - 1)), None);
    assert_eq!(statement.take_due_notice(at(due - DUE_NOTICE_SECONDS)), Some(DueNotice::WillBeDue));
    assert_eq!(statement.take_due_notice(at(due - 1)), None, "once");
    assert!(statement.overdue(at(due)) && !statement.overdue(at(due - 1)));
    assert_eq!(statement.next_notice_at(), Some(at(due + DUE_NOTICE_SECONDS)));
    assert_eq!(statement.take_due_notice(at(due + DUE_NOTICE_SECONDS)), Some(DueNotice::Overdue));
    assert_eq!(statement.take_due_notice(at(due + 100 * DAY)), None, "once");
    assert_eq!(statement.next_notice_at(), None);

    // Finalized already past due: no "will be due", only "overdue" when its time comes.
    let mut late = statement_in(Open);
    let version = late.version();
    assert_eq!(late.take_due_notice(at(due + 1)), None);
    assert!(late.version() > version, "the skipped reminder is recorded");
    assert_eq!(late.take_due_notice(at(due + DUE_NOTICE_SECONDS)), Some(DueNotice::Overdue));

    // Paid, void or uncollectible statements get none.
    for status in [Draft, Paid, Void, Uncollectible] {
        let mut closed = statement_in(status);
        assert_eq!((closed.take_due_notice(at(due + 100 * DAY)), closed.next_notice_at()), (None, None), "{status:?}");
    }
}
