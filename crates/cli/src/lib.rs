//! The client commands of the `payments` binary: `listen`, `trigger`, `fixtures`, `logs tail`,
//! `events resend` and `webhooks recover`. Each is an HTTP client of the public API, so it works
//! against any instance, local or shared; none opens a database.

mod api;
mod error;
mod event;
mod fixtures;
mod listen;
mod output;
mod ready;
mod request_log;
mod trigger;
mod webhook;

pub use api::{Api, ApiError, Connection};
pub use error::CliError;

use clap::Subcommand;
use output::Printer;

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
