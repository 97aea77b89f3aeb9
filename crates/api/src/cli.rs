//! The `payments` command: serve (the default), manage accounts in the database, or run a client
//! command against a running service (`payments_cli`: listen, trigger, fixtures, logs, …).

use crate::settings::{Settings, ValidSettings};
use crate::startup::{Application, StartupError};
use crate::state::Services;
use crate::telemetry;
use clap::{Parser, Subcommand};
use payments_application::ApplicationError;
use payments_domain::account::{Account, AccountKeys};
use serde_json::{json, Value};

/// Name of the account created on first start.
const FIRST_ACCOUNT_NAME: &str = "Default account";

#[derive(Debug, Parser)]
#[command(name = "payments", version, about = "A self-hosted payments service with the PayRex interface.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    connection: payments_cli::Connection,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the HTTP service (the default).
    Serve,
    /// Manage merchant accounts.
    Accounts {
        #[command(subcommand)]
        command: AccountsCommand,
    },
    #[command(flatten)]
    Client(payments_cli::ClientCommand),
}

#[derive(Debug, Subcommand)]
enum AccountsCommand {
    /// Create an account and print its id and four API keys as JSON. The keys are shown only once.
    Create {
        /// The merchant's name.
        #[arg(long)]
        name: String,
    },
}

/// Why a command failed; printed with its causes by the binary.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The settings are invalid: every problem, one per line.
    #[error("{0}")]
    Configuration(String),
    #[error(transparent)]
    Startup(#[from] StartupError),
    #[error("cannot start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("cannot create the account")]
    Account(#[source] ApplicationError),
    #[error("the account task failed")]
    Task(#[source] tokio::task::JoinError),
    #[error(transparent)]
    Client(#[from] payments_cli::CliError),
}

/// Runs the command line.
///
/// # Errors
/// Why configuration, database or server failed, with the cause.
pub fn run() -> Result<(), CliError> {
    let cli = Cli::parse();
    match cli.command.unwrap_or(Command::Serve) {
        // A client of the API: no settings, no database, no server log.
        Command::Client(command) => Ok(payments_cli::run(command, &cli.connection)?),
        Command::Serve => {
            let settings = server_settings()?;
            let runtime =
                tokio::runtime::Builder::new_multi_thread().enable_all().build().map_err(CliError::Runtime)?;
            runtime.block_on(serve(settings))
        }
        Command::Accounts { command: AccountsCommand::Create { name } } => {
            let services = Services::connect(&server_settings()?, std::sync::Arc::default())?;
            let (account, keys) = services.accounts.create(&name).map_err(CliError::Account)?;
            println!("{:#}", account_json(&account, &keys, true));
            Ok(())
        }
    }
}

/// The service's settings, validated, with its log set up by them.
fn server_settings() -> Result<ValidSettings, CliError> {
    let settings = Settings::load().and_then(|settings| settings.validate()).map_err(CliError::Configuration)?;
    telemetry::init(&settings.log);
    Ok(settings)
}

async fn serve(settings: ValidSettings) -> Result<(), CliError> {
    let application = Application::build(settings.clone()).await?;
    let accounts = application.services().accounts.clone();
    let first = tokio::task::spawn_blocking(move || accounts.create_first(FIRST_ACCOUNT_NAME))
        .await
        .map_err(CliError::Task)?
        .map_err(CliError::Account)?;
    if let Some((account, keys)) = first {
        tracing::info!(account = %account.id, "created the first account; its test keys are on standard output");
        println!("{:#}", account_json(&account, &keys, false));
    }
    tracing::info!(listen = %settings.listen, port = application.port(), "payments service listening");
    Ok(application.run_until_stopped().await?)
}

/// An account and its keys for its owner; live keys only when asked.
fn account_json(account: &Account, keys: &AccountKeys, with_live: bool) -> Value {
    let mut value = json!({
        "id": account.id.as_str(),
        "name": account.name,
        "test": {"secret_key": keys.secret_test.reveal(), "public_key": keys.public_test.reveal()},
    });
    if with_live {
        value["live"] = json!({"secret_key": keys.secret_live.reveal(), "public_key": keys.public_live.reveal()});
    }
    value
}
