//! The checkout session service over in-memory fakes: a session and its intent made together, paid
//! once from its page, expired by the merchant or by time, and confined to its scope.

use crate::support::{card_payment, event_count};
use payments_application::pagination::PageRequest;
use payments_application::ports::{CheckoutSessionFilter, Clock};
use payments_application::services::AttachOutcome;
use payments_application::testing::TestPorts;
use payments_application::ApplicationError;
use payments_domain::account::Mode;
use payments_domain::checkout_session::{
    BillingDetailsCollection, CheckoutSessionStatus, NewCheckoutSession, NewLineItem, SubmitType,
};
use payments_domain::event::EventType;
use payments_domain::money::{Amount, Currency};
use payments_domain::payment_intent::{CardOptions, PaymentIntentStatus};
use payments_domain::payment_method::PaymentMethodType;
use payments_domain::redirect_url::RedirectUrl;

const HOUR: i64 = 3_600;

fn new_session(ports: &TestPorts, cancel_url: &str) -> NewCheckoutSession<NewLineItem> {
    let mug = NewLineItem { name: "Mug".into(), amount: 45_000, quantity: 2, description: None, image: None };
    NewCheckoutSession {
        line_items: vec![mug],
        amount: Amount::new(90_000).unwrap(),
        currency: Currency::Php,
        success_url: RedirectUrl::new("https://shop.example/ok".into()).unwrap(),
        cancel_url: RedirectUrl::new(cancel_url.into()).unwrap(),
        payment_methods: vec![PaymentMethodType::Card],
        card_options: CardOptions::default(),
        customer_reference_id: Some("order-1".into()),
        billing_details_collection: BillingDetailsCollection::Auto,
        description: None,
        submit_type: SubmitType::Pay,
        statement_descriptor: None,
        expires_at: ports.clock.now().plus_seconds(HOUR),
        metadata: None,
    }
}

#[test]
fn a_session_is_paid_once_from_its_page_and_completes() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let service = ports.checkout_session_service();
    let created = service.create(&scope, new_session(&ports, "https://shop.example/cart")).unwrap();
    assert_eq!(created.session.status(), CheckoutSessionStatus::Active);
    assert_eq!(created.payment_intent.intent.amount().centavos(), 90_000);
    let secret = created.session.client_secret().reveal().to_owned();
    assert!(created.session.url().ends_with(&secret), "{}", created.session.url());

    let page = service.page(&secret).unwrap();
    assert!(page.payable);
    let AttachOutcome::Attached(paid) = service.pay(&page, card_payment()).unwrap() else { panic!("declined") };
    assert_eq!(paid.intent.status(), PaymentIntentStatus::Succeeded);
    let completed = service.retrieve(&scope, created.session.id().as_str()).unwrap();
    assert_eq!(completed.session.status(), CheckoutSessionStatus::Completed);
    assert_eq!(event_count(&ports, &scope, EventType::CheckoutSessionCompleted), 1);

    let stale_page = page;
    let again = service.pay(&stale_page, card_payment());
    assert!(matches!(again, Err(ApplicationError::InvalidState(_) | ApplicationError::Conflict)), "{again:?}");
    let reloaded = service.page(&secret).unwrap();
    assert!(!reloaded.payable);
    assert!(matches!(service.pay(&reloaded, card_payment()), Err(ApplicationError::InvalidState(_))));
    assert_eq!(event_count(&ports, &scope, EventType::PaymentPaid), 1, "paid once");
    let expire = service.expire(&scope, created.session.id().as_str());
    assert!(matches!(expire, Err(ApplicationError::InvalidState(_))), "{expire:?}");
}

#[test]
fn an_expired_session_cancels_its_intent_and_cannot_be_paid() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let service = ports.checkout_session_service();
    let by_merchant = service.create(&scope, new_session(&ports, "https://shop.example/cart")).unwrap();
    let by_time = service.create(&scope, new_session(&ports, "https://shop.example/cart")).unwrap();

    let expired = service.expire(&scope, by_merchant.session.id().as_str()).unwrap();
    assert_eq!(expired.session.status(), CheckoutSessionStatus::Expired);
    assert_eq!(expired.payment_intent.intent.status(), PaymentIntentStatus::Canceled);
    let page = service.page(by_merchant.session.client_secret().reveal()).unwrap();
    assert!(!page.payable);
    assert!(matches!(service.pay(&page, card_payment()), Err(ApplicationError::InvalidState(_))));

    assert_eq!(ports.due_work().run(10).unwrap(), 0, "not yet due");
    let page_before_expiry = service.page(by_time.session.client_secret().reveal()).unwrap();
    ports.clock.advance(HOUR);
    assert!(!service.page(by_time.session.client_secret().reveal()).unwrap().payable, "past expires_at");
    assert_eq!(ports.due_work().run(10).unwrap(), 1);
    let stored = service.retrieve(&scope, by_time.session.id().as_str()).unwrap();
    assert_eq!(stored.session.status(), CheckoutSessionStatus::Expired);
    let late = service.pay(&page_before_expiry, card_payment());
    assert!(late.is_err(), "a page loaded before the expiry cannot pay after it: {late:?}");
    assert_eq!(event_count(&ports, &scope, EventType::CheckoutSessionExpired), 2);
    assert_eq!(event_count(&ports, &scope, EventType::PaymentPaid), 0);
}

#[test]
fn sessions_list_newest_first_and_stay_in_their_scope() {
    let ports = TestPorts::new();
    let scope = ports.scope(Mode::Test);
    let service = ports.checkout_session_service();
    let first = service.create(&scope, new_session(&ports, "https://shop.example/cart")).unwrap();
    let second = service.create(&scope, new_session(&ports, "https://shop.example/cart")).unwrap();
    let page = service.list(&scope, &CheckoutSessionFilter::default(), &PageRequest::default()).unwrap();
    let ids: Vec<String> = page.data.iter().map(|view| view.session.id().to_string()).collect();
    assert_eq!(ids, vec![second.session.id().to_string(), first.session.id().to_string()]);
    for elsewhere in [ports.scope(Mode::Live), ports.other_scope()] {
        let found = service.retrieve(&elsewhere, first.session.id().as_str());
        assert!(matches!(found, Err(ApplicationError::NotFound { .. })), "{found:?}");
        let expired = service.expire(&elsewhere, first.session.id().as_str());
        assert!(matches!(expired, Err(ApplicationError::NotFound { .. })), "{expired:?}");
        assert!(service
            .list(&elsewhere, &CheckoutSessionFilter::default(), &PageRequest::default())
            .unwrap()
            .data
            .is_empty());
    }
    assert!(matches!(service.page("cs_unknown_secret"), Err(ApplicationError::NotFound { .. })));
}

#[test]
fn live_mode_refuses_plain_http_return_pages() {
    let ports = TestPorts::new();
    let service = ports.checkout_session_service();
    let created = service.create(&ports.scope(Mode::Live), new_session(&ports, "http://shop.example/cart"));
    assert!(matches!(created, Err(ApplicationError::Validation(_))), "{created:?}");
    assert!(service.create(&ports.scope(Mode::Test), new_session(&ports, "http://shop.example/cart")).is_ok());
}
