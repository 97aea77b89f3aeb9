//! What several service tests build on: a customer, a test card, a saved card.

use payments_application::pagination::PageRequest;
use payments_application::ports::{EventFilter, PaymentMethodInput};
use payments_application::services::{Access, AttachRequest, SetupAttachOutcome, SetupAttachRequest};
use payments_application::testing::TestPorts;
use payments_application::Scope;
use payments_domain::customer::{Customer, CustomerName, Email, NewCustomer};
use payments_domain::event::EventType;
use payments_domain::money::Currency;
use payments_domain::payment_intent::CardOptions;
use payments_domain::payment_method::{CardInput, CardNumber, Cvc, PaymentMethodType, Usage};
use payments_domain::setup_intent::NewSetupIntent;

/// A new customer of `scope`.
pub fn customer(ports: &TestPorts, scope: &Scope) -> Customer {
    let new = NewCustomer {
        name: CustomerName::new("Juan dela Cruz".into()).unwrap(),
        email: Email::new("juan@example.com".into()).unwrap(),
        currency: Currency::Php,
        billing_statement_prefix: None,
        next_billing_statement_sequence_number: None,
        billing: None,
        metadata: None,
    };
    ports.customer_service().create(scope, new).unwrap()
}

/// Card `number` expiring in 2040.
pub fn card(number: &str) -> CardInput {
    CardInput { number: CardNumber::new(number).unwrap(), exp_month: 12, exp_year: 2040, cvc: Cvc::new("123").unwrap() }
}

/// Paying with the test card that is approved at once.
pub fn card_payment() -> AttachRequest {
    AttachRequest {
        method: PaymentMethodInput::Card(card("4242424242424242")).into(),
        billing: None,
        return_url: None,
        save_with_session: None,
    }
}

/// How many events of `event_type` the scope has (of its latest hundred).
pub fn event_count(ports: &TestPorts, scope: &Scope, event_type: EventType) -> usize {
    let page = ports
        .event_service()
        .list(scope, &EventFilter::default(), &PageRequest::new(Some(100), None, None).unwrap())
        .unwrap();
    page.data.iter().filter(|event| event.event_type == event_type).count()
}

/// A setup intent for `customer`'s cards.
pub fn new_setup_intent(customer: &Customer) -> NewSetupIntent {
    NewSetupIntent {
        customer_id: customer.id.clone(),
        payment_methods: vec![PaymentMethodType::Card],
        usage: Usage::OffSession,
        description: None,
        metadata: None,
        return_url: None,
        card_options: CardOptions::default(),
    }
}

/// Saves a test card for `customer` through a setup intent the processor approves; its id.
pub fn saved_card(ports: &TestPorts, scope: &Scope, customer: &Customer) -> String {
    let service = ports.setup_intent_service();
    let intent = service.create(scope, new_setup_intent(customer)).unwrap().intent;
    let request = SetupAttachRequest { card: card("4242424242424242"), billing: None, return_url: None };
    match service.attach(scope, intent.id().as_str(), Access::SecretKey, request).unwrap() {
        SetupAttachOutcome::Attached(view) => view.intent.payment_method_id().unwrap().to_string(),
        SetupAttachOutcome::Declined(_, error) => panic!("declined: {error:?}"),
    }
}
