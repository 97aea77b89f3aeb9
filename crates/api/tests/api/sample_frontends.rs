//! PayRex's official sample front ends (`tests/frontends/`, kept as PayRex publishes them) pay
//! against the service in headless Chromium and report their outcome: the PHP sample's plain page,
//! and the Next.js sample's React components with the real `payrex-js` loader from npm. Both load
//! PayRex's script from `https://js.payrexhq.com`, which the test browser finds at a TLS server of
//! the test that forwards to the service's `/js/v1/payrex.js`.

use crate::browser::{browser_with_javascript_and, Browser};
use crate::helpers::TestApp;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio_rustls::rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio_rustls::rustls::{crypto::ring, ServerConfig};

on_one_backend!(
    the_php_sample_pays_and_reports_each_outcome_unchanged,
    the_nextjs_sample_pays_through_the_payrex_js_loader_unchanged,
);

/// PayRex's script address, as the samples and the `payrex-js` loader write it.
const PAYREX_SCRIPT_HOST: &str = "js.payrexhq.com";

/// The PHP sample's address: its `return_url` names `http://localhost:4242/checkout.html`.
const PHP_SAMPLE_PORT: u16 = 4242;

fn frontends() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/frontends")
}

/// A TLS server on a loopback port with a certificate of its own for PayRex's script address. It
/// forwards each request to the service with its path replaced by `/js/v1/payrex.js`, one request
/// per connection. Answers its port.
async fn payrex_script_host(service: &str) -> u16 {
    let certified = rcgen::generate_simple_self_signed(vec![PAYREX_SCRIPT_HOST.to_owned()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(certified.signing_key.serialize_der()));
    let config = ServerConfig::builder_with_provider(Arc::new(ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let upstream = service.trim_start_matches("http://").to_owned();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let (acceptor, upstream) = (acceptor.clone(), upstream.clone());
            tokio::spawn(async move {
                let Ok(mut browser_side) = acceptor.accept(stream).await else { return };
                let Some(head) = request_head(&mut browser_side).await else { return };
                let Ok(mut service_side) = tokio::net::TcpStream::connect(&upstream).await else { return };
                if service_side.write_all(forwarded(&head).as_bytes()).await.is_ok() {
                    let _ = tokio::io::copy_bidirectional(&mut browser_side, &mut service_side).await;
                }
            });
        }
    });
    port
}

/// A request's head (a script's GET has no body), up to its blank line.
async fn request_head(stream: &mut (impl AsyncReadExt + Unpin)) -> Option<String> {
    let mut head = Vec::new();
    let mut byte = [0; 1];
    while !head.ends_with(b"\r\n\r\n") {
        if head.len() > 16_384 || stream.read(&mut byte).await.ok()? == 0 {
            return None;
        }
        head.push(byte[0]);
    }
    String::from_utf8(head).ok()
}

/// The request for the service: the library's path, and the connection closed after the answer.
fn forwarded(head: &str) -> String {
    let mut lines = head.trim_end().lines();
    let method = lines.next().unwrap_or_default().split(' ').next().unwrap_or("GET");
    let mut out = format!("{method} /js/v1/payrex.js HTTP/1.1\r\n");
    for line in lines.filter(|line| !line.to_ascii_lowercase().starts_with("connection:")) {
        out.push_str(line);
        out.push_str("\r\n");
    }
    out.push_str("Connection: close\r\n\r\n");
    out
}

/// A headless Chromium that finds PayRex's script address at `port`, and takes that server's
/// certificate (this browser only). The element's frame runs in the page's process: when chromedriver
/// attaches to a frame's process of its own, Chromium closes an alert the page opened meanwhile (the
/// PHP sample reports with one while its frame loads), and the test would miss it.
async fn browser_routing_payrex_script(port: u16) -> Browser {
    browser_with_javascript_and(&[
        format!("--host-resolver-rules=MAP {PAYREX_SCRIPT_HOST} 127.0.0.1:{port}"),
        "--ignore-certificate-errors".to_owned(),
        "--disable-site-isolation-trials".to_owned(),
    ])
    .await
}

/// What the shop server answers: a status, a content type and a body.
type Answer = (u16, &'static str, Vec<u8>);

/// A merchant's server on `listener`: `answer` gets each request's method and target.
fn shop_server<F, Fut>(listener: tokio::net::TcpListener, answer: F)
where
    F: Fn(String, String) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Answer> + Send,
{
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let answer = answer.clone();
            tokio::spawn(async move {
                let Some(head) = request_head(&mut stream).await else { return };
                let mut words = head.split(' ');
                let (method, target) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
                let (status, content_type, body) = answer(method.to_owned(), target.to_owned()).await;
                let head = format!(
                    "HTTP/1.1 {status} OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes()).await;
                let _ = stream.write_all(&body).await;
            });
        }
    });
}

/// What the shop's server knows of the service: its address and the account's keys.
#[derive(Clone)]
struct Service {
    client: reqwest::Client,
    address: String,
    secret_key: String,
    public_key: String,
}

impl Service {
    fn of(app: &TestApp) -> Self {
        Self {
            client: app.client.clone(),
            address: app.address.clone(),
            secret_key: app.keys.secret_test.clone(),
            public_key: app.keys.public_test.clone(),
        }
    }
}

/// A payment intent created by the shop's server with the secret key, as the samples' servers do
/// with PayRex's clients: its client secret.
async fn create_intent(service: &Service, amount: &str) -> String {
    let response = service
        .client
        .post(format!("{}/payment_intents", service.address))
        .basic_auth(&service.secret_key, Some(""))
        .form(&[("amount", amount), ("currency", "PHP"), ("payment_methods[]", "card"), ("payment_methods[]", "gcash")])
        .send()
        .await
        .unwrap();
    let intent: Value = response.json().await.unwrap();
    intent["client_secret"].as_str().unwrap().to_owned()
}

/// The id of the intent whose client secret `url` brings back to the sample.
fn intent_returned_to(url: &str) -> String {
    let (_, secret) = url.split_once("payment_intent_client_secret=").unwrap_or_else(|| panic!("no secret in {url}"));
    secret.split("_secret_").next().unwrap().to_owned()
}

/// `file` of a sample with its key placeholder replaced by the account's public key, as the
/// sample's instructions say: the placeholder must be there.
fn with_key(source: &[u8], placeholder: &str, key: &str) -> Vec<u8> {
    let text = String::from_utf8(source.to_vec()).unwrap();
    assert!(text.contains(placeholder), "the sample's key placeholder {placeholder} is gone");
    text.replace(placeholder, key).into_bytes()
}

/// Waits (up to 10 s) for the page's alert, and returns its text after accepting it.
async fn alert_text(browser: &Browser) -> String {
    for _ in 0..100 {
        if let Ok(text) = browser.client.get_alert_text().await {
            browser.client.accept_alert().await.unwrap();
            return text;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no alert: at {} showing {}", browser.url().await, browser.text().await);
}

/// Waits (up to 10 s) until the element's frame shows the card number field, then types a card.
async fn type_card_when_ready(browser: &Browser, number: &str) {
    let waiting = browser.client.wait().at_most(std::time::Duration::from_secs(10));
    let frame = waiting.for_element(fantoccini::Locator::Css("iframe[title='Secure payment details']")).await.unwrap();
    frame.enter_frame().await.unwrap();
    let waiting = browser.client.wait().at_most(std::time::Duration::from_secs(10));
    waiting.for_element(fantoccini::Locator::Id("card-number")).await.unwrap();
    for (id, text) in [("card-number", number), ("card-expiry", "12 / 35"), ("card-cvc", "123")] {
        browser.fill(id, text).await;
    }
    browser.client.clone().enter_parent_frame().await.unwrap();
}

async fn status_of(app: &TestApp, id: &str) -> String {
    let (_, intent) = crate::helpers::read(app.get(&format!("/payment_intents/{id}")).await).await;
    intent["status"].as_str().unwrap().to_owned()
}

async fn the_php_sample_pays_and_reports_each_outcome_unchanged(app: TestApp) {
    let script_port = payrex_script_host(&app.address).await;
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", PHP_SAMPLE_PORT))
        .await
        .unwrap_or_else(|error| panic!("the PHP sample's port {PHP_SAMPLE_PORT} is taken: {error}"));
    let sample = frontends().join("payrex-php-sample");
    let shop = {
        let service = Service::of(&app);
        move |method: String, target: String| {
            let (service, sample) = (service.clone(), sample.clone());
            async move {
                let path = target.split('?').next().unwrap_or_default().to_owned();
                match (method.as_str(), path.as_str()) {
                    ("POST", "/create_payment_intent.php") => {
                        let client_secret = create_intent(&service, "10000").await;
                        (200, "application/json", serde_json::json!({ "clientSecret": client_secret }).to_string().into_bytes())
                    }
                    ("GET", "/checkout.html") => (200, "text/html", std::fs::read(sample.join("checkout.html")).unwrap()),
                    ("GET", "/checkout.css") => (200, "text/css", std::fs::read(sample.join("checkout.css")).unwrap()),
                    ("GET", "/checkout.js") => {
                        let source = std::fs::read(sample.join("checkout.js")).unwrap();
                        (200, "text/javascript", with_key(&source, "'pk_...'", &format!("'{}'", service.public_key)))
                    }
                    _ => (404, "text/plain", b"not found".to_vec()),
                }
            }
        }
    };
    shop_server(listener, shop);
    let browser = browser_routing_payrex_script(script_port).await;
    let page = format!("http://localhost:{PHP_SAMPLE_PORT}/checkout.html");

    // A decline stays on the page with the reason in the element; the same element then pays.
    browser.client.goto(&page).await.unwrap();
    type_card_when_ready(&browser, "4005550000000019").await;
    browser.click("#btn-pay").await;
    let frame = browser.client.find(fantoccini::Locator::Css("iframe")).await.unwrap();
    frame.enter_frame().await.unwrap();
    let waiting = browser.client.wait().at_most(std::time::Duration::from_secs(10));
    let alert = waiting.for_element(fantoccini::Locator::Css("#element-alert[role=alert]:not([hidden])")).await.unwrap();
    assert!(!alert.text().await.unwrap().is_empty());
    browser.client.clone().enter_parent_frame().await.unwrap();
    browser.screenshot("php-sample-declined").await;
    type_card_when_ready(&browser, "4242424242424242").await;
    browser.click("#btn-pay").await;
    assert_eq!(alert_text(&browser).await, "Payment succeeded.");
    let arrived = browser.url().await;
    assert!(arrived.starts_with(&format!("{page}?payment_intent_client_secret=pi_")), "{arrived}");
    let paid = intent_returned_to(&arrived);
    let (_, intent) = crate::helpers::read(app.get(&format!("/payment_intents/{paid}")).await).await;
    assert_eq!(intent["status"], "succeeded", "{intent}");
    let (_, payment) = crate::helpers::read(app.get(&format!("/payments/{}", intent["latest_payment"]["id"].as_str().unwrap())).await).await;
    assert_eq!(payment["payment_method"]["card"]["last4"], "4242", "the card paid after the decline: {payment}");

    // GCash, failed on the test authorization page: back on the sample, which says so.
    browser.client.goto(&page).await.unwrap();
    type_card_when_ready(&browser, "4242424242424242").await;
    let frame = browser.client.find(fantoccini::Locator::Css("iframe")).await.unwrap();
    frame.enter_frame().await.unwrap();
    browser.click("input[name=method][value=gcash]").await;
    browser.client.clone().enter_parent_frame().await.unwrap();
    browser.click("#btn-pay").await;
    browser.arrive("/test/authorize/").await;
    browser.click("button.fail").await;
    assert_eq!(alert_text(&browser).await, "Payment was not successful. Try again..");
    let gcash = intent_returned_to(&browser.url().await);
    assert_ne!(gcash, paid);
    assert_eq!(status_of(&app, &gcash).await, "awaiting_payment_method");
    browser.screenshot("php-sample-after-gcash-failed").await;
}

/// Bundles the Next.js sample's components with the `payrex-js` loader (`tests/frontends/.../build`):
/// the bundle's path.
fn nextjs_sample_bundle() -> PathBuf {
    let build = frontends().join("payrex-nextjs-sample/build");
    let status = std::process::Command::new(&build).status().expect("the sample's build runs (it needs node and npm)");
    assert!(status.success(), "{} failed", build.display());
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/frontends/payrex-nextjs-sample/shop.js")
}

/// The Next.js sample's page as its server renders it: the component, with the client secret.
fn nextjs_page(component: &str, client_secret: &str) -> Vec<u8> {
    format!(
        "<!doctype html><html><head><meta name=\"viewport\" content=\"width=device-width\"><title>Sample Payment Demo of PayRex</title></head>\
         <body><div id=\"root\" data-page=\"{component}\" data-client-secret=\"{client_secret}\"></div><script src=\"/shop.js\"></script></body></html>"
    )
    .into_bytes()
}

async fn the_nextjs_sample_pays_through_the_payrex_js_loader_unchanged(app: TestApp) {
    let bundle = tokio::task::spawn_blocking(nextjs_sample_bundle).await.unwrap();
    let script_port = payrex_script_host(&app.address).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let shop_address = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let shop = {
        let service = Service::of(&app);
        move |_method: String, target: String| {
            let (service, bundle) = (service.clone(), bundle.clone());
            async move {
                let (path, query) = target.split_once('?').unwrap_or((target.as_str(), ""));
                match path {
                    "/checkout" => {
                        let client_secret = create_intent(&service, "15000").await;
                        (200, "text/html", nextjs_page("payment-form", &client_secret))
                    }
                    "/checkout/redirect" => {
                        let secret = url::form_urlencoded::parse(query.as_bytes())
                            .find(|(name, _)| name == "payment_intent_client_secret")
                            .map(|(_, value)| value.into_owned())
                            .unwrap_or_default();
                        (200, "text/html", nextjs_page("confirmation", &secret))
                    }
                    "/shop.js" => {
                        let source = std::fs::read(&bundle).unwrap();
                        (200, "text/javascript", with_key(&source, "pk_test_...", &service.public_key))
                    }
                    _ => (404, "text/plain", b"not found".to_vec()),
                }
            }
        }
    };
    shop_server(listener, shop);
    let browser = browser_routing_payrex_script(script_port).await;

    for (number, shown, status) in [
        ("4242424242424242", "Successfully paid the transaction.", "succeeded"),
        ("4000000000003220", "Successfully paid the transaction.", "succeeded"),
    ] {
        browser.client.goto(&format!("{shop_address}/checkout")).await.unwrap();
        type_card_when_ready(&browser, number).await;
        browser.screenshot("nextjs-sample-checkout").await;
        browser.client.find(fantoccini::Locator::XPath("//button[contains(., 'Pay')]")).await.unwrap().click().await.unwrap();
        if number == "4000000000003220" {
            browser.arrive("/test/authorize/").await;
            browser.click("button.authorize").await;
        }
        let arrived = browser.arrive("/checkout/redirect?payment_intent_client_secret=").await;
        browser.see(shown).await;
        assert_eq!(status_of(&app, &intent_returned_to(&arrived)).await, status, "{number}");
    }
    browser.screenshot("nextjs-sample-confirmation").await;

    // GCash failed on the authorization page: the sample reports the problem.
    browser.client.goto(&format!("{shop_address}/checkout")).await.unwrap();
    type_card_when_ready(&browser, "4242424242424242").await;
    let frame = browser.client.find(fantoccini::Locator::Css("iframe")).await.unwrap();
    frame.enter_frame().await.unwrap();
    browser.click("input[name=method][value=gcash]").await;
    browser.client.clone().enter_parent_frame().await.unwrap();
    browser.client.find(fantoccini::Locator::XPath("//button[contains(., 'Pay')]")).await.unwrap().click().await.unwrap();
    browser.arrive("/test/authorize/").await;
    browser.click("button.fail").await;
    let arrived = browser.arrive("/checkout/redirect?payment_intent_client_secret=").await;
    browser.see("There is a problem completing the payment.").await;
    assert_eq!(status_of(&app, &intent_returned_to(&arrived)).await, "awaiting_payment_method");
}
