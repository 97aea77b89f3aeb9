//! `payments logs tail`: follows the account's request log (`GET /request_logs`) as it grows,
//! oldest first, with the API's own filters.

use crate::api::Api;
use crate::error::CliError;
use crate::output::Printer;
use serde_json::{json, Value};
use std::time::Duration;

/// How often the log is read again.
const POLL: Duration = Duration::from_secs(1);

#[derive(Debug, clap::Subcommand)]
pub enum LogsCommand {
    /// Print requests as they are logged, until interrupted.
    Tail(TailArgs),
}

#[derive(Debug, clap::Args)]
pub struct TailArgs {
    /// Only answers of this status or class (`404`, `4xx`).
    #[arg(long)]
    status: Option<String>,
    /// Only requests whose path starts with this (`/payment_intents`).
    #[arg(long)]
    path: Option<String>,
    /// Only requests of this method (`POST`).
    #[arg(long)]
    method: Option<String>,
    /// Only requests from this source (`api`, `dashboard`).
    #[arg(long)]
    source: Option<String>,
}

pub(crate) async fn run(api: &Api, command: LogsCommand, printer: &Printer) -> Result<(), CliError> {
    let LogsCommand::Tail(args) = command;
    let mut filters: Vec<(&str, String)> = Vec::new();
    let method = args.method.as_deref().map(str::to_ascii_uppercase);
    for (name, value) in [("status", &args.status), ("path", &args.path), ("method", &method), ("source", &args.source)]
    {
        if let Some(value) = value {
            filters.push((name, value.clone()));
        }
    }
    // Starts after the newest entry logged so far: only what happens from now on is printed.
    let newest = api.get("/request_logs", &[filters.as_slice(), &[("limit", "1".to_owned())]].concat()).await?;
    let mut after = newest["data"][0]["id"].as_str().map(str::to_owned);
    printer.note("logs: following the request log (^C to stop)");
    loop {
        let mut query = [filters.as_slice(), &[("limit", "100".to_owned())]].concat();
        if let Some(id) = &after {
            query.push(("before", id.clone()));
        }
        let page = match api.get("/request_logs", &query).await {
            Ok(page) => page,
            Err(error) if error.status().is_some_and(|status| status.as_u16() == 400) && after.is_some() => {
                // The entry followed from was pruned: go on from the newest.
                after = None;
                continue;
            }
            Err(error) => return Err(error.into()),
        };
        let entries = page["data"].as_array().cloned().unwrap_or_default();
        // A page is newest first: print it oldest first.
        for entry in entries.iter().rev() {
            print_entry(printer, entry);
        }
        if let Some(newest) = entries.first().and_then(|entry| entry["id"].as_str()) {
            after = Some(newest.to_owned());
        }
        if page["has_more"] != json!(true) {
            tokio::time::sleep(POLL).await;
        }
    }
}

fn print_entry(printer: &Printer, entry: &Value) {
    let text = |field: &str| entry[field].as_str().unwrap_or("").to_owned();
    let query =
        entry["query"].as_str().filter(|query| !query.is_empty()).map(|query| format!("?{query}")).unwrap_or_default();
    printer.line(
        format!(
            "{}  {} {:<7} {}{query}  {}ms  {}{}",
            entry["status"],
            text("source"),
            text("method"),
            text("path"),
            entry["duration_ms"],
            text("id"),
            entry["object_id"].as_str().map(|id| format!("  {id}")).unwrap_or_default(),
        ),
        entry,
    );
}
