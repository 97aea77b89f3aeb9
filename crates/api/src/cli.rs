//! The `payments` command: serve (the default), or manage accounts.

use crate::settings::{Settings, ValidSettings};
use crate::startup::Application;
use crate::state::Services;
use crate::telemetry;
use clap::{Parser, Subcommand};
use payments_domain::account::{Account, AccountKeys};
use serde_json::{json, Value};

/// Name of the account created on first start.
const FIRST_ACCOUNT_NAME: &str = "Default account";

#[derive(Debug, Parser)]
#[command(name = "payments", version, about = "A self-hosted payments service with the PayRex interface.")]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
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

/// Runs the command line.
///
/// # Errors
/// A message for the operator when configuration, database or server fail.
pub fn run() -> Result<(), String> {
    let cli = Cli::parse();
    let settings = Settings::load()?.validate()?;
    telemetry::init(&settings.log);
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the async runtime: {e}"))?;
            runtime.block_on(serve(settings))
        }
        Command::Accounts { command: AccountsCommand::Create { name } } => {
            let services = Services::connect(&settings, std::sync::Arc::new(payments_adapters::clock::SystemClock))?;
            let (account, keys) = services.accounts.create(&name).map_err(|e| e.to_string())?;
            println!("{:#}", account_json(&account, &keys, true));
            Ok(())
        }
    }
}

async fn serve(settings: ValidSettings) -> Result<(), String> {
    let application = Application::build(settings.clone()).await?;
    let accounts = application.services().accounts.clone();
    let first = tokio::task::spawn_blocking(move || accounts.create_first(FIRST_ACCOUNT_NAME))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| format!("cannot create the first account: {e}"))?;
    if let Some((account, keys)) = first {
        tracing::info!(account = %account.id, "created the first account; its test keys are on standard output");
        println!("{:#}", account_json(&account, &keys, false));
    }
    tracing::info!(listen = %settings.listen, port = application.port(), "payments service listening");
    application.run_until_stopped().await.map_err(|e| format!("the HTTP server failed: {e}"))
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
