//! Saved payment methods: listed per customer, changed and deleted.

use super::*;

pub fn saved_payment_methods_are_listed_per_customer_changed_and_deleted(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (first_customer, second_customer) = (customer(&scope, 1), customer(&scope, 2));
    let method = |n: u32, customer: &Customer| PaymentMethod {
        id: PaymentMethodId::from_random(&format!("saved{n}")),
        account_id: scope.account_id.clone(),
        livemode: scope.livemode(),
        customer_id: customer.id.clone(),
        verified: verified_card(),
        usage: Usage::OnSession,
        created_at: at(i64::from(n)),
        updated_at: at(i64::from(n)),
    };
    let methods = [method(1, &first_customer), method(2, &second_customer), method(3, &first_customer)];
    write(store, |r| {
        r.customers().insert(&first_customer)?;
        r.customers().insert(&second_customer)?;
        methods.iter().try_for_each(|m| r.payment_methods().insert(m))
    });
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), Some(methods[0].clone()));
    let id = |m: &PaymentMethod| m.id.to_string();
    let list = |page: PageRequest| read(store, |r| r.payment_methods().list(&scope, &first_customer.id, &page));
    assert_eq!(
        ids(&list(PageRequest::default()), id),
        vec![id(&methods[2]), id(&methods[0])],
        "the customer's, newest first"
    );
    let older = list(PageRequest::new(Some(1), Some(id(&methods[2])), None).unwrap());
    assert_eq!((ids(&older, id), older.has_more), (vec![id(&methods[0])], false));
    let other = PageRequest::new(None, Some(id(&methods[1])), None).unwrap();
    let unknown =
        reading(store, |r| r.payment_methods().list(&scope, &first_customer.id, &other).map_err(|e| other.explain(e)));
    assert!(
        matches!(unknown, Err(ApplicationError::Validation(_))),
        "another customer's method is no cursor: {unknown:?}"
    );
    let mut renewed = methods[0].clone();
    renewed.verified.card.exp_year += 4;
    renewed.updated_at = at(50);
    assert!(write(store, |r| r.payment_methods().update(&renewed)), "changed");
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), Some(renewed.clone()));
    let mut elsewhere_copy = renewed.clone();
    elsewhere_copy.account_id = account(store, "intruder").account_id;
    elsewhere_copy.verified.card.exp_year += 1;
    assert!(!write(store, |r| r.payment_methods().update(&elsewhere_copy)), "not through another account");
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), Some(renewed));
    assert!(write(store, |r| r.payment_methods().delete(&scope, &methods[0].id)), "deleted by this call");
    assert!(!write(store, |r| r.payment_methods().update(&methods[0])), "a deleted method is not changed");
    assert!(!write(store, |r| r.payment_methods().delete(&scope, &methods[0].id)), "already gone");
    assert_eq!(read(store, |r| r.payment_methods().find(&scope, &methods[0].id)), None);
    assert_eq!(ids(&list(PageRequest::default()), id), vec![id(&methods[2])]);
    let elsewhere = account(store, "other");
    write(store, |r| r.payment_methods().delete(&elsewhere, &methods[2].id));
    assert_eq!(
        read(store, |r| r.payment_methods().find(&scope, &methods[2].id)),
        Some(methods[2].clone()),
        "not deleted from another account"
    );
    assert_eq!(read(store, |r| r.payment_methods().find(&elsewhere, &methods[2].id)), None);
    assert_eq!(write(store, |r| r.payment_methods().delete_for_customer(&elsewhere, &first_customer.id)), 0);
    assert_eq!(write(store, |r| r.payment_methods().delete_for_customer(&scope, &first_customer.id)), 1);
    assert_eq!(
        read(store, |r| r.payment_methods().find(&scope, &methods[1].id)),
        Some(methods[1].clone()),
        "the other customer's stays"
    );
}
