//! The page's rules, table by table: what a merchant may set, and what a customer's order may be.

use super::*;
use crate::ids::{CustomFieldId, PageLineItemId};
use crate::price::NewPrice;
use crate::product::{NewProduct, ProductName};

const NOW: Timestamp = Timestamp::from_unix_seconds(1_795_920_000);

fn account() -> AccountId {
    AccountId::from_random("0VcKRLxAcctUzS3dfAVJZjOW6tPNtjH8")
}

fn product(random: &str, name: &str, active: bool) -> Product {
    let new = NewProduct { name: ProductName::new(name.into()).unwrap(), description: None, image: None };
    let mut product = Product::create(ProductId::from_random(random), account(), false, new, NOW);
    product.active = active;
    product
}

fn price(random: &str, product: &Product, centavos: i64, active: bool) -> Price {
    let new = NewPrice {
        product_id: product.id.clone(),
        amount: Amount::new(centavos).unwrap(),
        description: Some(Description::new(format!("{centavos} each")).unwrap()),
    };
    let mut price = Price::create(PriceId::from_random(random), account(), false, new, NOW);
    price.active = active;
    price
}

fn field(random: &str, name: &str, kind: FieldKind, required: bool) -> CustomField {
    CustomField { id: CustomFieldId::from_random(random), name: name.into(), kind, required }
}

/// A storefront of a mug (250.00), a shirt (500.00) and an archived cap, asking a size (required)
/// and a note.
fn storefront() -> (Page, Vec<(Price, Product)>) {
    let mug = product("0VcKRLxMugUzS3dfAVJZjOW6tPNtjH8b", "Mug", true);
    let shirt = product("0VcKRLxShirtzS3dfAVJZjOW6tPNtjH8", "Shirt", true);
    let cap = product("0VcKRLxCapUzS3dfAVJZjOW6tPNtjH8b", "Cap", false);
    let offered = vec![
        (price("0VcKRLxMugPrice3dfAVJZjOW6tPNtjH", &mug, 25_000, true), mug),
        (price("0VcKRLxShirtPrice3dfAVJZjOW6tPNt", &shirt, 50_000, true), shirt),
        (price("0VcKRLxCapPrice3dfAVJZjOW6tPNtjH", &cap, 10_000, true), cap),
    ];
    let details = PageDetails {
        title: "Merch".into(),
        description: None,
        template: PageTemplate::Storefront { prices: offered.iter().map(|(price, _)| price.id.clone()).collect() },
        custom_fields: vec![
            field(
                "0VcKRLxSizeUzS3dfAVJZjOW6tPNtjH8",
                "Size",
                FieldKind::Dropdown { options: vec!["S".into(), "M".into()] },
                true,
            ),
            field("0VcKRLxNoteUzS3dfAVJZjOW6tPNtjH8", "Note", FieldKind::Text { max_length: 10 }, false),
        ],
        payment_methods: vec![PaymentMethodType::Card],
        after_payment: AfterPayment::Message(DEFAULT_MESSAGE.into()),
    };
    (Page::create(PageId::from_random("0VcKRLxPageUzS3dfAVJZjOW6tPNtjH8"), account(), false, details, NOW), offered)
}

fn ids() -> impl FnMut() -> PageLineItemId {
    let mut next = 0;
    move || {
        next += 1;
        PageLineItemId::from_random(&format!("{next:0>32}"))
    }
}

fn order(quantities: &[(&str, i64)], answers: &[(&str, &str)]) -> PageOrder {
    PageOrder {
        quantities: quantities.iter().map(|(id, quantity)| ((*id).to_owned(), *quantity)).collect(),
        amount: None,
        answers: answers.iter().map(|(id, value)| ((*id).to_owned(), (*value).to_owned())).collect(),
    }
}

/// The parameters and codes of a refused order.
fn refusals(result: Result<PageSession, Vec<FieldError>>) -> Vec<(String, &'static str)> {
    result.unwrap_err().into_iter().map(|error| (error.parameter, error.code.as_str())).collect()
}

#[test]
fn a_storefront_order_has_one_line_per_chosen_price_and_the_answers_in_the_pages_order() {
    let (page, offered) = storefront();
    let (mug, shirt) = (offered[0].0.id.to_string(), offered[1].0.id.to_string());
    let size = page.details.custom_fields[0].id.to_string();
    let note = page.details.custom_fields[1].id.to_string();
    let session =
        page.order(&order(&[(&mug, 3), (&shirt, 0)], &[(&note, "gift"), (&size, "M")]), &offered, &mut ids()).unwrap();
    assert_eq!(session.amount, 75_000);
    assert_eq!(session.line_items.len(), 1, "a price taken 0 times is no line");
    let line = &session.line_items[0];
    assert_eq!(
        (line.price_id.as_str(), line.price_amount, line.quantity, line.total_amount, line.product_name.as_str()),
        (mug.as_str(), 25_000, 3, 75_000, "Mug")
    );
    assert_eq!(line.price_description.as_deref(), Some("25000 each"));
    assert_eq!(line.id, "page_li_00000000000000000000000000000001");
    let answers: Vec<(&str, &str)> =
        session.custom_fields.iter().map(|a| (a.name.as_str(), a.value.as_str())).collect();
    assert_eq!(answers, [("Size", "M"), ("Note", "gift")]);
}

#[test]
fn every_bad_order_is_refused_with_each_reason() {
    let (page, offered) = storefront();
    let (mug, cap) = (offered[0].0.id.to_string(), offered[2].0.id.to_string());
    let size = page.details.custom_fields[0].id.to_string();
    let note = page.details.custom_fields[1].id.to_string();
    let elsewhere = "price_0VcKRLxOtherPrice3dfAVJZjOW6tP";
    let table: Vec<(PageOrder, Vec<(String, &str)>)> = vec![
        (order(&[], &[(&size, "S")]), vec![("quantity".into(), "parameter_required")]),
        (order(&[(&mug, 0)], &[(&size, "S")]), vec![("quantity".into(), "parameter_required")]),
        (order(&[(&mug, 100)], &[(&size, "S")]), vec![(format!("quantity[{mug}]"), "parameter_above_maximum")]),
        (order(&[(&mug, -1)], &[(&size, "S")]), vec![(format!("quantity[{mug}]"), "parameter_below_minimum")]),
        (order(&[(elsewhere, 1)], &[(&size, "S")]), vec![(format!("quantity[{elsewhere}]"), "parameter_invalid")]),
        (order(&[(&cap, 1)], &[(&size, "S")]), vec![(format!("quantity[{cap}]"), "parameter_invalid")]),
        (order(&[(&mug, 1)], &[]), vec![(format!("custom_fields[{size}]"), "parameter_required")]),
        (order(&[(&mug, 1)], &[(&size, "  ")]), vec![(format!("custom_fields[{size}]"), "parameter_required")]),
        (order(&[(&mug, 1)], &[(&size, "XL")]), vec![(format!("custom_fields[{size}]"), "parameter_invalid")]),
        (
            order(&[(&mug, 1)], &[(&size, "S"), (&note, "far too long")]),
            vec![(format!("custom_fields[{note}]"), "parameter_invalid")],
        ),
        (
            order(&[(&mug, 1)], &[(&size, "S"), ("page_cf_unknown", "x")]),
            vec![("custom_fields[page_cf_unknown]".into(), "parameter_invalid")],
        ),
    ];
    for (bad, expected) in table {
        assert_eq!(refusals(page.order(&bad, &offered, &mut ids())), expected, "{bad:?}");
    }
    let with_amount = PageOrder { amount: Some(50_000), ..order(&[(&mug, 1)], &[(&size, "S")]) };
    assert_eq!(refusals(page.order(&with_amount, &offered, &mut ids())), [("amount".to_owned(), "parameter_invalid")]);
    let mut closed = page.clone();
    closed.update(None, Some(false), NOW);
    let refused = refusals(closed.order(&order(&[(&mug, 1)], &[(&size, "S")]), &offered, &mut ids()));
    assert_eq!(refused, [("page".to_owned(), "parameter_invalid")]);
}

#[test]
fn the_storefronts_total_stays_within_the_bounds_of_an_amount() {
    let (mut page, mut offered) = storefront();
    page.details.custom_fields.clear();
    offered[0].0.amount = Amount::new(Amount::MAXIMUM).unwrap();
    let mug = offered[0].0.id.to_string();
    let refused = refusals(page.order(&order(&[(&mug, 2)], &[]), &offered, &mut ids()));
    assert_eq!(refused, [("quantity".to_owned(), "parameter_above_maximum")]);
    assert_eq!(page.order(&order(&[(&mug, 1)], &[]), &offered, &mut ids()).unwrap().amount, Amount::MAXIMUM);
}

#[test]
fn a_single_amount_is_the_merchants_or_the_customers_within_bounds() {
    let (mut page, _) = storefront();
    page.details.custom_fields.clear();
    page.details.template = PageTemplate::FixedAmount { amount: Amount::new(150_000).unwrap() };
    let session = page.order(&PageOrder::default(), &[], &mut ids()).unwrap();
    assert_eq!((session.amount, session.line_items.len()), (150_000, 0));
    let chose_anyway = PageOrder { amount: Some(1), quantities: vec![("price_x".into(), 1)], ..PageOrder::default() };
    let refused = refusals(page.order(&chose_anyway, &[], &mut ids()));
    assert_eq!(
        refused,
        [("quantity[price_x]".to_owned(), "parameter_invalid"), ("amount".to_owned(), "parameter_invalid")]
    );

    page.details.template = PageTemplate::CustomerChosenAmount {
        minimum: Amount::new(10_000).unwrap(),
        maximum: Amount::new(20_000).unwrap(),
    };
    let chosen = |amount: Option<i64>| PageOrder { amount, ..PageOrder::default() };
    for (amount, expected) in [
        (Some(10_000), Ok(10_000)),
        (Some(20_000), Ok(20_000)),
        (Some(9_999), Err("parameter_below_minimum")),
        (Some(20_001), Err("parameter_above_maximum")),
        (None, Err("parameter_required")),
    ] {
        let result = page.order(&chosen(amount), &[], &mut ids());
        let got = result.map(|session| session.amount).map_err(|errors| errors[0].code.as_str());
        assert_eq!(got, expected, "{amount:?}");
    }
}

#[test]
fn a_number_field_takes_a_whole_number_within_its_bounds() {
    let (mut page, _) = storefront();
    let id = "0VcKRLxAgeUzS3dfAVJZjOW6tPNtjH8b";
    page.details.custom_fields =
        vec![field(id, "Age", FieldKind::Number { minimum: Some(18), maximum: Some(120) }, false)];
    page.details.template = PageTemplate::FixedAmount { amount: Amount::new(5_000).unwrap() };
    let field_id = format!("page_cf_{id}");
    for (answer, expected) in [
        ("18", Ok(Some("18"))),
        (" 42 ", Ok(Some("42"))),
        ("", Ok(None)),
        ("17", Err("parameter_below_minimum")),
        ("121", Err("parameter_above_maximum")),
        ("4.5", Err("parameter_type_invalid")),
        ("1e2", Err("parameter_type_invalid")),
        ("99999999999999999999", Err("parameter_type_invalid")),
    ] {
        let sent = PageOrder { answers: vec![(field_id.clone(), answer.to_owned())], ..PageOrder::default() };
        let result = page.order(&sent, &[], &mut ids());
        let got = result
            .map(|session| session.custom_fields.first().map(|answer| answer.value.clone()))
            .map_err(|errors| errors[0].code.as_str());
        assert_eq!(got, expected.map(|value| value.map(str::to_owned)), "{answer:?}");
    }
}

#[test]
fn what_a_merchant_sets_is_checked_field_by_field() {
    let (page, _) = storefront();
    assert_eq!(page.details.check(), Ok(()));
    let parameters = |details: PageDetails| -> Vec<String> {
        details.check().unwrap_err().into_iter().map(|error| error.parameter).collect()
    };
    let mut bad = page.details.clone();
    bad.title = " ".into();
    bad.payment_methods.clear();
    bad.after_payment = AfterPayment::Message(String::new());
    assert_eq!(parameters(bad), ["title", "payment_methods", "after_payment_message"]);

    let mut bad = page.details.clone();
    let PageTemplate::Storefront { prices } = &page.details.template else { unreachable!() };
    bad.template = PageTemplate::Storefront { prices: vec![prices[0].clone(), prices[0].clone()] };
    assert_eq!(parameters(bad.clone()), ["prices"]);
    bad.template = PageTemplate::Storefront { prices: vec![] };
    assert_eq!(parameters(bad), ["prices"]);

    let mut bad = page.details.clone();
    bad.template = PageTemplate::CustomerChosenAmount {
        minimum: Amount::new(20_000).unwrap(),
        maximum: Amount::new(10_000).unwrap(),
    };
    assert_eq!(parameters(bad), ["maximum_amount"]);

    let mut bad = page.details.clone();
    let id = "0VcKRLxBadFieldS3dfAVJZjOW6tPNtj";
    bad.custom_fields = vec![
        field(id, "", FieldKind::Text { max_length: 10 }, false),
        field(id, "Long", FieldKind::Text { max_length: TEXT_LENGTH + 1 }, false),
        field(id, "Range", FieldKind::Number { minimum: Some(5), maximum: Some(1) }, false),
        field(id, "Pick", FieldKind::Dropdown { options: vec![] }, false),
        field(id, "Pick", FieldKind::Dropdown { options: vec!["a".into(), "a".into()] }, false),
    ];
    assert_eq!(
        parameters(bad.clone()),
        [
            "custom_fields[0][name]",
            "custom_fields[1][max_length]",
            "custom_fields[2][maximum]",
            "custom_fields[3][options]",
            "custom_fields[4][options]"
        ]
    );
    bad.custom_fields =
        (0..=MAX_CUSTOM_FIELDS).map(|_| field(id, "Name", FieldKind::Text { max_length: 5 }, false)).collect();
    assert_eq!(parameters(bad), ["custom_fields"]);
}
