//! The console's pages read in a bounded number of statements: every page a signed-in developer can
//! reach by a link, crawled over HTTP, sends the same statements for an account that holds one of
//! everything as for one that holds many (counted at the database while nothing else sends to it);
//! and the combined reads behind the pages (an intent's timeline, the overview, a customer's page)
//! send the same statements whatever the objects hold. On both backends.

use crate::console::Console;
use crate::helpers::{spawn_app, spawn_app_serving_requests_only, spawn_app_stepping_deliveries, TestApp};
use payments_adapters::db::testing::{count_every_connections_statements, count_statements, statements_sent_to};
use payments_adapters::db::Backend;
use payments_api::state::Services;
use payments_application::scope::Scope;
use payments_application::ApplicationError;
use payments_domain::account::KeyKind;
use payments_domain::ids::RequestLogId;
use payments_domain::request_log::{RequestLog, RequestSource};
use payments_domain::time::Timestamp;

on_both_backends_unstarted!(
    every_console_page_reads_the_same_statements_for_a_small_and_a_large_account,
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
        // The test clock's offset is remembered for a second: read it just before each count, so
        // that neither read pays for it when the second count starts a second after the first.
        let fresh_clock = || services.test_clocks.retrieve(&scope).unwrap();
        fresh_clock();
        let (first, sent_first) = count_statements(|| read(&services, &scope));
        fresh_clock();
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

/// Every page the console's links reach, as route patterns: a new page must be added here, and so
/// is counted.
const CONSOLE_PAGES: [&str; 30] = [
    "/dashboard",
    "/dashboard/mailbox",
    "/dashboard/payment_intents",
    "/dashboard/payment_intents/{id}",
    "/dashboard/payments",
    "/dashboard/payments/{id}",
    "/dashboard/refunds",
    "/dashboard/refunds/{id}",
    "/dashboard/balance",
    "/dashboard/payouts",
    "/dashboard/payouts/{id}",
    "/dashboard/payouts/{id}/transactions.csv",
    "/dashboard/customers",
    "/dashboard/customers/{id}",
    "/dashboard/checkout_sessions",
    "/dashboard/checkout_sessions/{id}",
    "/dashboard/billing_statements",
    "/dashboard/billing_statements/{id}",
    "/dashboard/products",
    "/dashboard/products/{id}",
    "/dashboard/pages",
    "/dashboard/pages/new",
    "/dashboard/pages/{id}",
    "/dashboard/pages/{id}/payments.csv",
    "/dashboard/events",
    "/dashboard/events/{id}",
    "/dashboard/webhooks",
    "/dashboard/webhooks/{id}",
    "/dashboard/request_logs",
    "/dashboard/request_logs/{id}",
];

/// Adds `n` of everything the console shows to the test account: customers with paid and refunded
/// payments, an open billing statement, a checkout session, a webhook, request log entries, and a
/// day of the test clock, which makes a payout.
async fn seed(app: &TestApp, n: usize) {
    for _ in 0..n {
        let customer = app.create_customer("Ana").await;
        let customer_id = customer["id"].as_str().unwrap();
        let intent = app.create_intent(20_000, &format!("&customer_id={customer_id}&metadata[order]=A-1")).await;
        let (status, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
        assert_eq!(status, 200, "{paid}");
        refund(app, paid["latest_payment"]["id"].as_str().unwrap()).await;
        crate::billing_statements::open_statement(app).await;
        let session = "line_items[0][name]=Mug&line_items[0][amount]=5000&line_items[0][quantity]=1\
            &success_url=https://s.example/ok&cancel_url=https://s.example/no&payment_methods[]=card";
        assert_eq!(app.post("/checkout_sessions", session).await.0, 200);
        crate::webhooks::register(app, "https://shop.example/hooks", &["payment_intent.succeeded"]).await;
        page_paid_once(app).await;
    }
    let services = app.services.clone();
    let key = app.keys.secret_test.clone();
    let now = i64::try_from(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()).unwrap();
    tokio::task::spawn_blocking(move || {
        let scope = services.accounts.authenticate(&key).unwrap().scope;
        let entries: Vec<RequestLog> = (0..n)
            .map(|_| RequestLog {
                id: RequestLogId::from_random(&format!("{:0>32}", rand_part())),
                account_id: scope.account_id.clone(),
                livemode: false,
                source: RequestSource::Api,
                key_kind: KeyKind::Secret,
                method: "GET".into(),
                path: "/customers".into(),
                query: String::new(),
                status: 200,
                duration_ms: 1,
                idempotency_key: None,
                replayed: false,
                object_id: None,
                request_body: None,
                response_body: Some(r#"{"resource":"list"}"#.into()),
                created_at: Timestamp::from_unix_seconds(now),
            })
            .collect();
        services.request_logs.record(&entries).unwrap();
    })
    .await
    .unwrap();
    assert_eq!(app.post("/test_helpers/clock/advance", "seconds=259200").await.0, 200);
}

/// A product with a price, a storefront page offering it with a question, and an order on it paid.
async fn page_paid_once(app: &TestApp) {
    let (_, product) = app.post("/products", "name=Mug").await;
    let (status, price) = app.post("/prices", &format!("product_id={}&amount=25000", product["id"].as_str().unwrap())).await;
    assert_eq!(status, 200, "{price}");
    let price = price["id"].as_str().unwrap();
    let page = format!(
        "title=Merch&template=storefront&prices[]={price}&payment_methods[]=card\
         &custom_fields[0][name]=Size&custom_fields[0][type]=text"
    );
    let (status, page) = app.post("/pages", &page).await;
    assert_eq!(status, 200, "{page}");
    let (id, size) = (page["id"].as_str().unwrap(), page["custom_fields"][0]["id"].as_str().unwrap());
    let order = format!("quantity[{price}]=2&custom_fields[{size}]=M");
    let (status, intent) = app.post(&format!("/test_helpers/pages/{id}/orders"), &order).await;
    assert_eq!(status, 200, "{intent}");
    let (status, paid) = app.attach_card(intent["id"].as_str().unwrap(), "4242424242424242").await;
    assert_eq!(status, 200, "{paid}");
}

/// A part of an id no other seeded entry has.
fn rand_part() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!("x{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// The route pattern of a console path: each id the service minted is `{id}`.
fn pattern(path: &str) -> String {
    path.split('/')
        .map(|segment| if payments_domain::ids::is_minted_id(segment) { "{id}" } else { segment })
        .collect::<Vec<_>>()
        .join("/")
}

/// The console's paths that `page` links to (no query, no fragment, under `/dashboard`).
fn links(page: &str) -> Vec<String> {
    page.split("href=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .filter(|href| href.starts_with("/dashboard") && !href.contains(['?', '#']))
        .map(|href| href.replace("&amp;", "&"))
        .collect()
}

/// Crawls the console from its overview, one page of each route pattern (the first linked), and
/// answers each pattern's statements: the fewest of two requests (a session is touched now and
/// then, which is no read of the page).
async fn crawl(app: &TestApp, console: &Console<'_>) -> std::collections::BTreeMap<String, usize> {
    let database = app.database.url().trim_start_matches("sqlite://").to_owned();
    let mut counts = std::collections::BTreeMap::new();
    let mut queue = std::collections::VecDeque::from(["/dashboard".to_owned()]);
    while let Some(path) = queue.pop_front() {
        let route = pattern(&path);
        if counts.contains_key(&route) {
            continue;
        }
        let mut fewest = usize::MAX;
        let mut page = String::new();
        for _ in 0..2 {
            let before = statements_sent_to(&database);
            let (status, text) = console.get(&path).await;
            assert_eq!(status, 200, "{path}: {text}");
            fewest = fewest.min(statements_sent_to(&database) - before);
            page = text;
        }
        counts.insert(route, fewest);
        queue.extend(links(&page));
    }
    counts
}

async fn every_console_page_reads_the_same_statements_for_a_small_and_a_large_account(backend: Backend) {
    count_every_connections_statements();
    let app = spawn_app_serving_requests_only(backend).await;
    seed(&app, 1).await;
    let mut console = Console::new(&app);
    console.sign_in(&app.keys.secret_test).await;
    let small = crawl(&app, &console).await;
    let found: Vec<&str> = small.keys().map(String::as_str).collect();
    assert_eq!(found, { let mut pages = CONSOLE_PAGES.to_vec(); pages.sort_unstable(); pages }, "the console's pages");
    assert!(small.values().all(|sent| *sent >= 1), "every page read something: {small:?}");
    seed(&app, 4).await;
    let large = crawl(&app, &console).await;
    assert_eq!(large, small, "each page's statements with five of everything (left) and one (right)");
}
