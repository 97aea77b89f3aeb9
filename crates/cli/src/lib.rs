//! The client commands of the `payments` binary: `listen`, `trigger`, `fixtures`, `logs tail`,
//! `events resend` and `webhooks recover`. Each is an HTTP client of the public API, so it works
//! against any instance, local or shared; none opens a database.

mod api;
mod event;
mod fixtures;
mod listen;
mod output;
mod ready;
mod request_log;
mod trigger;
mod webhook;

pub use api::{Api, ApiError};

use clap::{Args, Subcommand};
use output::Printer;

/// The service a command talks to, and how it prints.
#[derive(Debug, Clone, Args)]
pub struct Connection {
    /// The service's base URL.
    #[arg(long, env = "PAYMENTS_API_BASE", default_value = "http://127.0.0.1:8080", global = true)]
    pub api_base: url::Url,
    /// A secret API key of the account (sk_test_… or sk_live_…).
    #[arg(long, env = "PAYMENTS_KEY", hide_env_values = true, global = true)]
    pub key: Option<String>,
    /// Print JSON lines instead of lines for people.
    #[arg(long, global = true)]
    pub json: bool,
}

/// The client commands.
#[derive(Debug, Subcommand)]
pub enum ClientCommand {
    /// Receive the account's events as they happen and forward each to local URLs, signed as a
    /// webhook delivery.
    Listen(listen::ListenArgs),
    /// Make the API calls that produce an event (`--list` shows every event type).
    Trigger(trigger::TriggerArgs),
    /// Run a JSON file of named requests in order; later requests may use earlier answers
    /// (`${customer:id}`).
    Fixtures(fixtures::FixturesArgs),
    /// Follow the account's request log.
    Logs {
        #[command(subcommand)]
        command: request_log::LogsCommand,
    },
    /// Work with events.
    Events {
        #[command(subcommand)]
        command: event::EventsCommand,
    },
    /// Work with webhook endpoints.
    Webhooks {
        #[command(subcommand)]
        command: webhook::WebhooksCommand,
    },
    /// Exit 0 when the service is ready (`GET /readyz` answers 200), 1 otherwise; no key needed. The
    /// container image's health check.
    Ready,
}

/// Why a client command failed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    #[error("a secret API key is needed: pass --key or set PAYMENTS_KEY")]
    NoKey,
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {reason}")]
    File { path: String, reason: String },
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
}

/// The real time now.
pub(crate) fn now() -> payments_domain::time::Timestamp {
    let since_epoch = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    payments_domain::time::Timestamp::from_unix_millis(i64::try_from(since_epoch.as_millis()).unwrap_or(i64::MAX))
}

/// Runs a client command to its end (`listen` and `logs tail` run until interrupted).
///
/// # Errors
/// What the service refused or why it could not be reached; a bad argument or file.
pub fn run(command: ClientCommand, connection: &Connection) -> Result<(), CliError> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
    let printer = Printer::new(connection.json);
    runtime.block_on(async {
        match &command {
            ClientCommand::Trigger(args) if args.list => {
                trigger::list(&printer);
                return Ok(());
            }
            ClientCommand::Ready => return ready::run(connection, &printer).await,
            _ => {}
        }
        let api = Api::new(connection)?;
        match command {
            ClientCommand::Listen(args) => listen::run(&api, &args, &printer).await,
            ClientCommand::Trigger(args) => trigger::run(&api, &args, &printer).await,
            ClientCommand::Fixtures(args) => fixtures::run_file(&api, &args, &printer).await,
            ClientCommand::Logs { command } => request_log::run(&api, command, &printer).await,
            ClientCommand::Events { command } => event::run(&api, command, &printer).await,
            ClientCommand::Webhooks { command } => webhook::run(&api, command, &printer).await,
            ClientCommand::Ready => Ok(()),
        }
    })
}
