//! A webhook receiver on a loopback port: records every request and answers from a script, with
//! `answered <status>` as the body.

use actix_web::{web, App, HttpRequest, HttpResponse, HttpServer};
use std::collections::VecDeque;
use std::net::TcpListener;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How the receiver answers one request.
#[derive(Debug, Clone, Copy)]
pub enum Reply {
    Status(u16),
    /// Answer 200 after this long.
    Slow(Duration),
}

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub at: Instant,
    pub path: String,
    pub body: String,
    pub signature: String,
    pub content_type: String,
    /// The Standard Webhooks headers: `webhook-id`, `webhook-timestamp`, `webhook-signature`.
    pub standard: [String; 3],
}

#[derive(Default)]
struct State {
    received: Mutex<Vec<Received>>,
    script: Mutex<VecDeque<Reply>>,
}

/// A running receiver; answers 200 once its script is used up.
pub struct Receiver {
    pub url: String,
    state: Arc<State>,
}

impl Receiver {
    /// A receiver on a fresh port.
    pub fn start(script: Vec<Reply>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a receiver port");
        Self::on(listener, script)
    }

    /// A receiver on a given listener.
    pub fn on(listener: TcpListener, script: Vec<Reply>) -> Self {
        let url = format!("http://{}/hooks", listener.local_addr().unwrap());
        let state = Arc::new(State { received: Mutex::default(), script: Mutex::new(script.into()) });
        let data = web::Data::from(state.clone());
        let server = HttpServer::new(move || App::new().app_data(data.clone()).default_service(web::to(receive)))
            .workers(1)
            .disable_signals()
            .listen(listener)
            .expect("listen")
            .run();
        tokio::spawn(server);
        Self { url, state }
    }

    /// Everything received so far.
    pub fn received(&self) -> Vec<Received> {
        self.state.received.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Waits until `count` requests arrived, or panics after `within`.
    pub async fn wait_for(&self, count: usize, within: Duration) -> Vec<Received> {
        let deadline = Instant::now() + within;
        loop {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            assert!(Instant::now() < deadline, "got {} of {count} deliveries: {received:?}", received.len());
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

async fn receive(request: HttpRequest, body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    let header =
        |name: &str| request.headers().get(name).and_then(|value| value.to_str().ok()).unwrap_or_default().to_owned();
    state.received.lock().unwrap_or_else(PoisonError::into_inner).push(Received {
        at: Instant::now(),
        path: request.path().to_owned(),
        body: String::from_utf8_lossy(&body).into_owned(),
        signature: header("payrex-signature"),
        content_type: header("content-type"),
        standard: [header("webhook-id"), header("webhook-timestamp"), header("webhook-signature")],
    });
    let reply = state.script.lock().unwrap_or_else(PoisonError::into_inner).pop_front();
    match reply {
        Some(Reply::Status(code)) => {
            HttpResponse::build(actix_web::http::StatusCode::from_u16(code).unwrap()).body(format!("answered {code}"))
        }
        Some(Reply::Slow(delay)) => {
            tokio::time::sleep(delay).await;
            HttpResponse::Ok().finish()
        }
        None => HttpResponse::Ok().body("answered 200"),
    }
}
