//! Products, prices and pages: stored whole in their scope, versioned, listed newest first (prices
//! by product too); a page is found by its id alone for its public address.

use super::*;
use payments_domain::ids::{CustomFieldId, PageId, PriceId, ProductId};
use payments_domain::page::{AfterPayment, CustomField, FieldKind, Page as PaymentPage, PageDetails, PageTemplate};
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

    // Another mode or account sees none of it.
    let live = Scope { mode: Mode::Live, ..scope.clone() };
    let other = account(store, "other");
    for elsewhere in [live, other] {
        assert_eq!(read(store, |r| r.products().find(&elsewhere, &mug.id)), None);
        assert_eq!(read(store, |r| r.prices().find(&elsewhere, &small.id)), None);
        assert_eq!(read(store, |r| r.pages().find(&elsewhere, &storefront.id)), None);
        assert!(read(store, |r| r.prices().list(&elsewhere, None, &newest)).data.is_empty());
    }
}
