//! Billing statements: stored with their line items, filtered.

use super::*;

pub(super) fn statement(scope: &Scope, customer: &Customer, n: u32) -> BillingStatement {
    let id = BillingStatementId::from_random(&format!("s{n}{}", scope.account_id.as_str().len()));
    let details = StatementDetails {
        currency: Currency::Php,
        description: Some(Description::new(format!("Statement {n}")).unwrap()),
        due_at: Some(at(10 * 86_400)),
        billing_details_collection: BillingDetailsCollection::Auto,
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        statement_descriptor: None,
        metadata: Some(metadata(&[("n", "1")])),
    };
    let secret = ClientSecret::new(id.as_str(), "secret");
    BillingStatement::create(
        id,
        scope.account_id.clone(),
        scope.livemode(),
        customer.id.clone(),
        secret,
        details,
        at(0),
    )
}

pub(super) fn line_item(name: &str, unit_price: i64) -> LineItem {
    LineItem {
        id: BillingStatementLineItemId::from_random(name),
        description: name.to_owned(),
        unit_price,
        quantity: 2,
        created_at: at(1),
        updated_at: at(1),
    }
}

pub fn billing_statements_round_trip_with_their_line_items_and_filters(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_customer, second_customer) = (customer(&scope, 1), customer(&scope, 2));
    write(store, |r| r.customers().insert(&first_customer));
    write(store, |r| r.customers().insert(&second_customer));
    let mut first = statement(&scope, &first_customer, 1);
    write(store, |r| r.billing_statements().insert(&first));
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, first.id())), Some(first.clone()));

    // Line items are written after the versioned update that guards them, and read back in order.
    let version = first.version();
    first.add_line_item(line_item("bwork", 3_000), at(2)).unwrap();
    first.add_line_item(line_item("atravel", 500), at(2)).unwrap();
    write(store, |r| {
        r.billing_statements().update(&first, version)?;
        r.billing_statements().replace_line_items(&first)
    });
    let stale = in_transaction(store, |r| Ok(r.billing_statements().update(&first, version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let stored = read(store, |r| r.billing_statements().find(&scope, first.id())).unwrap();
    assert_eq!(stored, first);
    assert_eq!(stored.amount(), 7_000);
    let item_id = first.line_items()[1].id.clone();
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&scope, &item_id)), Some(first.clone()));
    let version = first.version();
    first
        .update_line_item(&item_id, LineItemChanges { quantity: Some(5), ..LineItemChanges::default() }, at(3))
        .unwrap();
    first.remove_line_item(&first.line_items()[0].id.clone(), at(3)).unwrap();
    write(store, |r| {
        r.billing_statements().update(&first, version)?;
        r.billing_statements().replace_line_items(&first)
    });
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, first.id())), Some(first.clone()));
    let gone = BillingStatementLineItemId::from_random("bwork");
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&scope, &gone)), None);

    // Finalized: found by its intent, and by the job once a reminder is due.
    let intent = new_intent(&scope, 1);
    write(store, |r| r.payment_intents().insert(&intent));
    let version = first.version();
    let finalization = Finalization {
        number: "P0001-0001".into(),
        payment_intent_id: intent.id().clone(),
        url: "u".into(),
        finalized_at: at(5),
    };
    first.finalize(finalization, at(4)).unwrap();
    write(store, |r| r.billing_statements().update(&first, version));
    assert_eq!(
        read(store, |r| r.billing_statements().find_by_payment_intent(&scope, intent.id())),
        Some(first.clone())
    );
    assert_eq!(read(store, |r| r.billing_statements().find_for_page(first.id())), Some(first.clone()));
    let reminder = first.next_notice_at().unwrap();
    assert!(read(store, |r| r.billing_statements().with_notice_due(None, reminder.plus_seconds(-1), 10)).is_empty());
    assert_eq!(read(store, |r| r.billing_statements().with_notice_due(None, reminder, 10)), vec![first.clone()]);
    assert_eq!(
        read(store, |r| r.billing_statements().with_notice_due(Some(&scope), reminder, 10)),
        vec![first.clone()]
    );
    let elsewhere = Scope { mode: Mode::Live, ..scope.clone() };
    assert!(read(store, |r| r.billing_statements().with_notice_due(Some(&elsewhere), reminder, 10)).is_empty());

    // Lists filter by customer and status; a cursor names any statement of the scope.
    let second = statement(&scope, &second_customer, 2);
    write(store, |r| r.billing_statements().insert(&second));
    let page = PageRequest::new(None, None, None).unwrap();
    let list = |filter: BillingStatementFilter| {
        let found = read(store, |r| r.billing_statements().list(&scope, &filter, &page));
        ids(&found, |s| s.id().to_string())
    };
    assert_eq!(list(BillingStatementFilter::default()), vec![second.id().to_string(), first.id().to_string()]);
    let by_customer = BillingStatementFilter { customer_id: Some(first_customer.id.clone()), status: None };
    assert_eq!(list(by_customer), vec![first.id().to_string()]);
    let drafts = BillingStatementFilter { customer_id: None, status: Some(BillingStatementStatus::Draft) };
    assert_eq!(list(drafts), vec![second.id().to_string()]);
    let older = PageRequest::new(None, Some(second.id().to_string()), None).unwrap();
    let found = read(store, |r| r.billing_statements().list(&scope, &BillingStatementFilter::default(), &older));
    assert_eq!(ids(&found, |s| s.id().to_string()), vec![first.id().to_string()]);

    let elsewhere = account(store, "other");
    assert_eq!(read(store, |r| r.billing_statements().find(&elsewhere, first.id())), None);
    assert_eq!(read(store, |r| r.billing_statements().find_by_line_item(&elsewhere, &item_id)), None);
    write(store, |r| r.billing_statements().delete(&second, second.version()));
    assert_eq!(read(store, |r| r.billing_statements().find(&scope, second.id())), None);
}
