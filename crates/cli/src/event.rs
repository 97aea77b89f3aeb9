//! `payments events resend`: sends an event again to one webhook endpoint, or to every enabled one
//! of the account that listens to its type.

use crate::api::{segment, Api};
use crate::error::CliError;
use crate::output::Printer;
use reqwest::Method;
use serde_json::{json, Value};

#[derive(Debug, clap::Subcommand)]
pub enum EventsCommand {
    /// Send an event again (`POST /webhooks/:id/resend`).
    Resend {
        /// The event's id (evt_…).
        event_id: String,
        /// Only to this webhook endpoint (wh_…); by default to every enabled one that listens to
        /// the event's type.
        #[arg(long)]
        webhook: Option<String>,
    },
}

pub(crate) async fn run(api: &Api, command: EventsCommand, printer: &Printer) -> Result<(), CliError> {
    let EventsCommand::Resend { event_id, webhook } = command;
    let event = api.get(&format!("/events/{}", segment(&event_id)), &[]).await?;
    let event_type = event["type"].as_str().unwrap_or_default().to_owned();
    let webhooks = match webhook {
        Some(id) => vec![id],
        None => listening_webhooks(api, &event_type).await?,
    };
    if webhooks.is_empty() {
        return Err(CliError::Usage(format!("no enabled webhook listens to {event_type}; name one with --webhook")));
    }
    for id in webhooks {
        let body = json!({"event_id": event_id});
        let path = format!("/webhooks/{}/resend", segment(&id));
        api.call(Method::POST, &path, &[], Some(&body)).await?;
        printer.line(
            format!("{event_id} ({event_type}) queued for {id}"),
            &json!({"type": "resend", "event_id": event_id, "event_type": event_type, "webhook_id": id}),
        );
    }
    Ok(())
}

/// The enabled webhooks of the account that listen to `event_type`, over every page.
async fn listening_webhooks(api: &Api, event_type: &str) -> Result<Vec<String>, CliError> {
    let mut found = Vec::new();
    let mut after: Option<String> = None;
    loop {
        let mut query = vec![("limit", "100".to_owned()), ("status", "enabled".to_owned())];
        if let Some(after) = &after {
            query.push(("after", after.clone()));
        }
        let page = api.get("/webhooks", &query).await?;
        let hooks = page["data"].as_array().cloned().unwrap_or_default();
        for hook in &hooks {
            let listens = hook["events"].as_array().is_some_and(|events| events.iter().any(|e| e == event_type));
            if let (true, Some(id)) = (listens, hook["id"].as_str()) {
                found.push(id.to_owned());
            }
        }
        after = hooks.last().and_then(|hook| hook["id"].as_str()).map(str::to_owned);
        if page["has_more"] != Value::Bool(true) || after.is_none() {
            return Ok(found);
        }
    }
}
