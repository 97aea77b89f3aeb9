//! Billing statement e-mail through a real SMTP conversation: an SMTP server (mailin-embedded)
//! listens on loopback, the service is configured with its URL, and the message it receives is
//! parsed (mail-parser) for its headers, its plain-text and HTML parts and the statement's link. A
//! server that is down when the statement is sent gets the message once it is up: nothing is lost.

use crate::helpers::{read, spawn_app_with, TestApp};
use mail_parser::MessageParser;
use mailin_embedded::{response, Handler, Response, Server};
use payments_adapters::db::Backend;
use serde_json::Value;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The messages an SMTP server received, as sent.
#[derive(Clone, Default)]
struct Inbox {
    received: Arc<Mutex<Vec<Vec<u8>>>>,
    current: Vec<u8>,
    /// Whether every recipient is refused for good (550), and how many were asked for.
    refuse_recipients: bool,
    recipients_asked: Arc<Mutex<usize>>,
}

impl Handler for Inbox {
    fn rcpt(&mut self, _to: &str) -> Response {
        *self.recipients_asked.lock().unwrap_or_else(PoisonError::into_inner) += 1;
        if self.refuse_recipients {
            response::NO_MAILBOX
        } else {
            response::OK
        }
    }

    fn data_start(&mut self, _domain: &str, _from: &str, _is8bit: bool, _to: &[String]) -> Response {
        self.current.clear();
        response::OK
    }

    fn data(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.current.extend_from_slice(buf);
        Ok(())
    }

    fn data_end(&mut self) -> Response {
        self.received.lock().unwrap_or_else(PoisonError::into_inner).push(std::mem::take(&mut self.current));
        response::OK
    }
}

impl Inbox {
    /// Starts a server on `listener` that collects into a new inbox; it runs until the tests end.
    fn serve(listener: TcpListener) -> Self {
        Self::default().start(listener)
    }

    /// Starts a server on `listener` that refuses every recipient for good.
    fn refusing(listener: TcpListener) -> Self {
        Self { refuse_recipients: true, ..Self::default() }.start(listener)
    }

    fn start(self, listener: TcpListener) -> Self {
        let inbox = self;
        let mut server = Server::new(inbox.clone());
        server.with_name("smtp.test").with_tcp_listener(listener);
        std::thread::spawn(move || {
            if let Err(error) = server.serve() {
                eprintln!("the test SMTP server stopped: {error}");
            }
        });
        inbox
    }

    /// The messages received within ten seconds, once there are `count`.
    async fn wait_for(&self, count: usize) -> Vec<Vec<u8>> {
        for _ in 0..200 {
            let received = self.received.lock().unwrap_or_else(PoisonError::into_inner).clone();
            if received.len() >= count {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the SMTP server received fewer than {count} messages");
    }
}

async fn app_mailing_to(port: u16) -> TestApp {
    spawn_app_with(Backend::Sqlite, move |settings| {
        settings.mail.smtp_url = format!("smtp://127.0.0.1:{port}");
        settings.mail.from = "Acme Billing <billing@acme.example>".to_owned();
    })
    .await
}

/// An open statement of a new customer, sent; returns the statement.
async fn send_statement(app: &TestApp) -> Value {
    let (status, customer) = app
        .post("/customers", "name=Maria%20Santos&email=maria%40example.com&currency=PHP&billing_statement_prefix=MSA")
        .await;
    assert_eq!(status, 200, "{customer}");
    let due_at = customer["created_at"].as_i64().unwrap() + 7 * 24 * 60 * 60;
    let body = format!("customer_id={}&due_at={due_at}", customer["id"].as_str().unwrap());
    let (_, statement) = app.post("/billing_statements", &body).await;
    let id = statement["id"].as_str().unwrap();
    let item = format!("billing_statement_id={id}&description=Monthly%20plan&unit_price=123450&quantity=1");
    assert_eq!(app.post("/billing_statement_line_items", &item).await.0, 200);
    let (status, open) = app.post(&format!("/billing_statements/{id}/finalize"), "").await;
    assert_eq!(status, 200, "{open}");
    let started = std::time::Instant::now();
    let (status, sent) = app.post(&format!("/billing_statements/{id}/send"), "").await;
    assert_eq!(status, 200, "{sent}");
    assert!(started.elapsed() < Duration::from_secs(2), "the API answers without waiting for the SMTP server");
    open
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sent_statement_arrives_at_a_real_smtp_server_with_both_parts_and_its_link() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let inbox = Inbox::serve(listener);
    let app = app_mailing_to(port).await;
    let statement = send_statement(&app).await;
    let url = statement["url"].as_str().unwrap();

    let received = inbox.wait_for(1).await;
    assert_eq!(received.len(), 1);
    let message = MessageParser::default().parse(&received[0]).expect("a parsable message");
    let subject = message.subject().expect("a Subject header");
    assert!(subject.starts_with("Billing statement MSA-0001 from Acme: ₱1,234.50 due "), "{subject}");
    assert!(message.date().is_some(), "a Date header");
    let message_id = message.message_id().expect("a Message-ID header");
    assert!(message_id.starts_with("mail_") && message_id.ends_with("@127.0.0.1"), "{message_id}");
    let from = message.from().and_then(|from| from.first()).expect("a From header");
    assert_eq!((from.name(), from.address()), (Some("Acme Billing"), Some("billing@acme.example")));
    assert_eq!(message.to().and_then(|to| to.first()).and_then(|to| to.address()), Some("maria@example.com"));
    let content_type = message.header_raw("Content-Type").unwrap_or_default();
    assert!(content_type.contains("multipart/alternative"), "{content_type}");
    let text = message.body_text(0).expect("a plain-text part");
    let html = message.body_html(0).expect("an HTML part");
    for part in [&text, &html] {
        assert!(part.contains(url), "the link in {part}");
        assert!(part.contains("MSA-0001") && part.contains("₱1,234.50") && part.contains("Monthly plan"), "{part}");
    }
    assert!(!text.contains('<'), "the text part is plain: {text}");
    assert!(!html.contains("<img") && !html.contains("<script"), "no tracking: {html}");

    // The mailbox records that it went to the server.
    app.mailbox_showing("sent to the SMTP server").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_for_a_server_that_is_down_is_retried_until_it_arrives() {
    // A port with nothing listening yet.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let app = app_mailing_to(port).await;
    send_statement(&app).await;
    app.mailbox_showing("queued (").await;
    let events = read(app.get("/events?limit=1").await).await.1;
    assert_eq!(events["data"][0]["type"], "billing_statement.sent", "sent is recorded when the message is queued");

    let inbox = Inbox::serve(TcpListener::bind(("127.0.0.1", port)).unwrap());
    let received = inbox.wait_for(1).await;
    let message = MessageParser::default().parse(&received[0]).unwrap();
    assert!(message.subject().unwrap_or_default().contains("MSA-0001"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(inbox.wait_for(1).await.len(), 1, "sent once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permanent_refusal_is_recorded_and_not_retried() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let inbox = Inbox::refusing(listener);
    let app = app_mailing_to(port).await;
    send_statement(&app).await;
    let mailbox = app.mailbox_showing("failed (").await;
    assert!(mailbox.contains("550"), "the server's reply is recorded: {mailbox}");
    // Retries would come after 300 ms, 600 ms, … in the tests' schedule.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    assert_eq!(*inbox.recipients_asked.lock().unwrap_or_else(PoisonError::into_inner), 1, "asked once, never again");
    assert!(inbox.received.lock().unwrap_or_else(PoisonError::into_inner).is_empty());
}
