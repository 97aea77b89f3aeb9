//! The console's combined pages read in a bounded number of statements: an intent's timeline, the
//! overview and a customer's page each send the same statements whatever the objects hold, counted
//! on the connection (`db::testing::count_statements`) while the service reads, on both backends.

use crate::helpers::{spawn_app, spawn_app_stepping_deliveries, TestApp};
use payments_adapters::db::testing::{count_every_connections_statements, count_statements};
use payments_adapters::db::Backend;
use payments_api::state::Services;
use payments_application::scope::Scope;
use payments_application::ApplicationError;

on_both_backends_unstarted!(
    an_intents_timeline_reads_the_same_statements_however_many_refunds_and_events_it_has,
    the_overview_reads_the_same_statements_however_many_webhooks_fail,
    a_customers_page_reads_the_same_statements_however_much_the_customer_holds,
);

/// The most statements a combined page may send, `BEGIN` and `COMMIT` included.
const MOST_STATEMENTS: usize = 12;

/// The statements `read` sends, read twice in a row (the second count is returned, and must equal
/// the first: nothing is cached between reads).
async fn statements<T: Send + 'static>(
    app: &TestApp,
    read: impl Fn(&Services, &Scope) -> Result<T, ApplicationError> + Send + 'static,
) -> usize {
    let services = app.services.clone();
    let key = app.keys.secret_test.clone();
    tokio::task::spawn_blocking(move || {
        let scope = services.accounts.authenticate(&key).unwrap().scope;
        let (first, sent_first) = count_statements(|| read(&services, &scope));
        let (second, sent) = count_statements(|| read(&services, &scope));
        first.unwrap();
        second.unwrap();
        assert_eq!(sent_first, sent, "the same read twice");
        assert!((1..=MOST_STATEMENTS).contains(&sent), "{sent} statements");
        sent
    })
    .await
    .unwrap()
}

async fn refund(app: &TestApp, payment_id: &str) {
    let body = format!("amount=100&currency=PHP&payment_id={payment_id}&reason=others");
    let (status, refund) = app.post("/refunds", &body).await;
    assert_eq!(status, 200, "{refund}");
}

async fn an_intents_timeline_reads_the_same_statements_however_many_refunds_and_events_it_has(backend: Backend) {
    count_every_connections_statements();
    let app = spawn_app(backend).await;
    let intent = app.create_intent(20_000, "").await;
    let id = intent["id"].as_str().unwrap().to_owned();
    let (status, paid) = app.attach_card(&id, "4242424242424242").await;
    assert_eq!(status, 200, "{paid}");
    let payment = paid["latest_payment"]["id"].as_str().or(paid["latest_payment"].as_str()).unwrap().to_owned();
    refund(&app, &payment).await;
    let timeline = {
        let id = id.clone();
        move |services: &Services, scope: &Scope| services.payment_intents.timeline(scope, &id)
    };
    let few = statements(&app, timeline.clone()).await;
    for _ in 0..6 {
        refund(&app, &payment).await;
        app.create_intent(5_000, "").await;
    }
    let many = statements(&app, timeline).await;
    assert_eq!(few, many, "a timeline with 1 refund and with 7");
}

async fn the_overview_reads_the_same_statements_however_many_webhooks_fail(backend: Backend) {
    count_every_connections_statements();
    let app = spawn_app_stepping_deliveries(backend).await;
    let overview = |services: &Services, scope: &Scope| services.overview.overview(scope, 10, 100);
    crate::webhooks::register(&app, "http://127.0.0.1:9/hooks", &["payment_intent.succeeded"]).await;
    crate::webhooks::pay(&app).await;
    assert_eq!(app.deliver_due().await, 1);
    let few = statements(&app, overview).await;
    for _ in 0..4 {
        crate::webhooks::register(&app, "http://127.0.0.1:9/hooks", &["payment_intent.succeeded"]).await;
    }
    for _ in 0..3 {
        crate::webhooks::pay(&app).await;
    }
    let mut attempts = 0;
    for _ in 0..20 {
        attempts += app.deliver_due().await;
        if attempts >= 12 {
            break;
        }
    }
    assert!(attempts >= 12, "5 webhooks fail their deliveries: {attempts} attempts");
    let many = statements(&app, overview).await;
    assert_eq!(few, many, "an overview with 1 failing webhook and with 5");
}

async fn a_customers_page_reads_the_same_statements_however_much_the_customer_holds(backend: Backend) {
    count_every_connections_statements();
    let app = spawn_app(backend).await;
    let customer = app.create_customer("Ana").await;
    let customer_id = customer["id"].as_str().unwrap().to_owned();
    let page = {
        let id = customer_id.clone();
        move |services: &Services, scope: &Scope| services.customers.page(scope, &id, 20)
    };
    let mut one_of_each = 0;
    for round in 0..3 {
        app.create_intent(5_000, &format!("&customer_id={customer_id}")).await;
        crate::customer_sessions::saved_card(&app, &customer_id).await;
        let body = format!("customer_id={customer_id}&{}", crate::customer_sessions::ALL_ENABLED);
        assert_eq!(app.post("/customer_sessions", &body).await.0, 200);
        let (status, statement) = app.post("/billing_statements", &format!("customer_id={customer_id}")).await;
        assert_eq!(status, 200, "{statement}");
        let id = statement["id"].as_str().unwrap();
        crate::billing_statements::add_item(&app, id, "Consulting", 150_000, 1).await;
        if round == 0 {
            one_of_each = statements(&app, page.clone()).await;
        }
    }
    let three_of_each = statements(&app, page).await;
    assert_eq!(one_of_each, three_of_each, "a customer's page with one of each and with three of each");
}
