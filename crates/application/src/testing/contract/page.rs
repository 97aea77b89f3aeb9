//! Products, prices and pages: stored whole in their scope, versioned, listed newest first (prices
//! by product too); a page is found by its id alone for its public address.

use super::*;
use payments_domain::ids::{CustomFieldId, PageId, PriceId, ProductId};
use payments_domain::page::{
    AfterPayment, CustomField, FieldKind, Page as PaymentPage, PageDetails, PageSession, PageTemplate,
};
use payments_domain::price::{NewPrice, Price};
use payments_domain::product::{NewProduct, Product, ProductName};

fn product(scope: &Scope, n: u32) -> Product {
    let new = NewProduct {
        name: ProductName::new(format!("Product {n}")).unwrap(),
        description: Some(Description::new("Stoneware".into()).unwrap()),
        image: Some("https://shop.example/mug.png".into()),
    };
    Product::create(
        ProductId::from_random(&format!("product{n}")),
        scope.account_id.clone(),
        scope.livemode(),
        new,
        at(0),
    )
}

fn price(scope: &Scope, product: &Product, n: u32) -> Price {
    let new = NewPrice { product_id: product.id.clone(), amount: Amount::new(25_000).unwrap(), description: None };
    Price::create(PriceId::from_random(&format!("price{n}")), scope.account_id.clone(), scope.livemode(), new, at(0))
}

fn page(scope: &Scope, prices: &[&Price]) -> PaymentPage {
    let details = PageDetails {
        title: "Merch".into(),
        description: None,
        template: PageTemplate::Storefront { prices: prices.iter().map(|price| price.id.clone()).collect() },
        custom_fields: vec![
            CustomField {
                id: CustomFieldId::from_random("size"),
                name: "Size".into(),
                kind: FieldKind::Dropdown { options: vec!["S".into(), "M".into()] },
                required: true,
            },
            CustomField {
                id: CustomFieldId::from_random("age"),
                name: "Age".into(),
                kind: FieldKind::Number { minimum: Some(18), maximum: None },
                required: false,
            },
        ],
        payment_methods: vec![PaymentMethodType::Card, PaymentMethodType::Gcash],
        after_payment: AfterPayment::Redirect(RedirectUrl::new("https://shop.example/thanks".into()).unwrap()),
    };
    PaymentPage::create(PageId::from_random("page1"), scope.account_id.clone(), scope.livemode(), details, at(0))
}

pub fn products_prices_and_pages_round_trip_in_their_scope(store: &dyn UnitOfWork) {
    let scope = account(store, "acme");
    let (mug, shirt) = (product(&scope, 1), product(&scope, 2));
    let (small, large, shirt_price) = (price(&scope, &mug, 1), price(&scope, &mug, 2), price(&scope, &shirt, 3));
    let storefront = page(&scope, &[&small, &shirt_price]);
    write(store, |r| {
        r.products().insert(&mug)?;
        r.products().insert(&shirt)?;
        for price in [&small, &large, &shirt_price] {
            r.prices().insert(price)?;
        }
        r.pages().insert(&storefront)
    });
    assert_eq!(read(store, |r| r.products().find(&scope, &mug.id)), Some(mug.clone()));
    assert_eq!(read(store, |r| r.prices().find(&scope, &small.id)), Some(small.clone()));
    assert_eq!(read(store, |r| r.pages().find(&scope, &storefront.id)), Some(storefront.clone()));
    assert_eq!(read(store, |r| r.pages().find_public(&storefront.id)), Some(storefront.clone()));
    let both = read(store, |r| r.prices().find_many(&scope, &[small.id.clone(), shirt_price.id.clone()]));
    assert_eq!(both.len(), 2);
    assert_eq!(read(store, |r| r.products().find_many(&scope, &[mug.id.clone(), shirt.id.clone()])).len(), 2);

    let newest = PageRequest::new(Some(10), None, None).unwrap();
    let listed = read(store, |r| r.prices().list(&scope, Some(&mug.id), &newest));
    assert_eq!(ids(&listed, |price| price.id.to_string()), [large.id.to_string(), small.id.to_string()]);
    let all = read(store, |r| r.prices().list(&scope, None, &newest));
    assert_eq!(all.data.len(), 3);
    let after = PageRequest::new(Some(1), Some(shirt.id.to_string()), None).unwrap();
    let older = read(store, |r| r.products().list(&scope, &after));
    assert_eq!(ids(&older, |product| product.id.to_string()), [mug.id.to_string()]);
    assert_eq!(read(store, |r| r.pages().list(&scope, &newest)).data, std::slice::from_ref(&storefront));

    // Versioned updates: archived, deactivated; a stale version is a conflict.
    let mut archived = small.clone();
    archived.update(payments_domain::price::PriceChanges { active: Some(false), ..Default::default() }, at(5));
    write(store, |r| r.prices().update(&archived, small.version));
    let stale = in_transaction(store, |r| Ok(r.prices().update(&archived, small.version)?));
    assert!(matches!(stale, Err(ApplicationError::Conflict)), "{stale:?}");
    let mut closed = storefront.clone();
    closed.update(None, Some(false), at(5));
    write(store, |r| r.pages().update(&closed, storefront.version));
    assert_eq!(read(store, |r| r.pages().find_public(&storefront.id)).map(|page| page.active), Some(false));

    // A product no price names is deleted.
    let lone = product(&scope, 3);
    write(store, |r| r.products().insert(&lone));
    write(store, |r| r.products().delete(&scope, &lone.id));
    assert_eq!(read(store, |r| r.products().find(&scope, &lone.id)), None);

    // A page's payments: only those of orders placed on it.
    let session =
        PageSession { page_id: storefront.id.to_string(), amount: 10_000, custom_fields: vec![], line_items: vec![] };
    let ordered = new_intent(&scope, 7).for_page(session, |_| "https://pay.example/o/secret".into());
    let elsewhere_ordered = new_intent(&scope, 8);
    let rate = FeeRate { basis_points: 230, fixed: 0 };
    let paid = Payment::paid(PaymentId::from_random("pagepay"), &ordered, 10_000, gcash_attempt(1), rate, at(6));
    let not_of_page =
        Payment::paid(PaymentId::from_random("other"), &elsewhere_ordered, 10_000, gcash_attempt(2), rate, at(6));
    write(store, |r| {
        r.payment_intents().insert(&ordered)?;
        r.payment_intents().insert(&elsewhere_ordered)?;
        r.payments().insert(&paid)?;
        r.payments().insert(&not_of_page)
    });
    let of_page = PaymentFilter { page_id: Some(storefront.id.clone()), ..PaymentFilter::default() };
    let listed = read(store, |r| r.payments().list(&scope, &of_page, &newest));
    assert_eq!(listed.data, vec![paid.clone()]);
    let of_another = PaymentFilter { page_id: Some(PageId::from_random("nothere")), ..PaymentFilter::default() };
    assert!(read(store, |r| r.payments().list(&scope, &of_another, &newest)).data.is_empty());

    // Another mode or account sees none of it.
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.products().find(&elsewhere, &mug.id)), None);
        assert_eq!(read(store, |r| r.prices().find(&elsewhere, &small.id)), None);
        assert_eq!(read(store, |r| r.pages().find(&elsewhere, &storefront.id)), None);
        assert!(read(store, |r| r.prices().list(&elsewhere, None, &newest)).data.is_empty());
        assert!(read(store, |r| r.payments().list(&elsewhere, &of_page, &newest)).data.is_empty());
    }
}
