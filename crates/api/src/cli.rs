//! The `payments` command: serve (the default), manage accounts in the database, or run a client
//! command against a running service (`payments_cli`: listen, trigger, fixtures, logs, …).

use crate::representation::account::{
    account_json, deleted_account_json, deleted_json, export_lines, imported_json, new_account_json, open_export,
};
use crate::settings::{Settings, ValidSettings};
use crate::startup::{Application, StartupError};
use crate::state::Services;
use crate::telemetry;
use clap::{Parser, Subcommand};
use payments_application::services::account::MAX_ACCOUNTS_LISTED;
use payments_application::ApplicationError;
use payments_domain::ids::AccountId;

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
    /// Print every account, one JSON object a line.
    List,
    /// Delete every object of an account's test mode; its keys and live mode stay.
    DeleteTestData {
        /// The account's id (acct_…).
        account: String,
    },
    /// Delete an account, its keys and every object of both modes.
    Delete {
        /// The account's id (acct_…).
        account: String,
    },
    /// Write an account's test-mode objects as JSON lines, to import into another account.
    Export {
        /// The account's id (acct_…).
        account: String,
        /// The file to write; standard output when not given.
        #[arg(long)]
        output: Option<std::path::PathBuf>,
    },
    /// Store an export in an account whose test mode holds no objects, with the exported ids.
    Import {
        /// The account's id (acct_…).
        account: String,
        /// The export to read; `-` for standard input.
        file: std::path::PathBuf,
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
    #[error("the accounts command failed")]
    Account(#[source] ApplicationError),
    #[error("the account id {0} is not of an account's form (acct_…)")]
    AccountId(String),
    #[error("cannot read or write {path}")]
    File {
        path: String,
        #[source]
        source: std::io::Error,
    },
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
        Command::Accounts { command } => {
            let services = Services::connect(&server_settings()?, std::sync::Arc::default())?;
            accounts(&services, command)
        }
    }
}

/// Runs an accounts command against the database.
fn accounts(services: &Services, command: AccountsCommand) -> Result<(), CliError> {
    let accounts = &services.accounts;
    match command {
        AccountsCommand::Create { name } => {
            let (account, keys) = accounts.create(&name).map_err(CliError::Account)?;
            println!("{:#}", new_account_json(&account, &keys, true));
        }
        AccountsCommand::List => {
            let mut after = None;
            loop {
                let (page, has_more) = accounts.list(after.as_ref(), MAX_ACCOUNTS_LISTED).map_err(CliError::Account)?;
                for account in &page {
                    println!("{}", account_json(account));
                }
                match page.last() {
                    Some(last) if has_more => after = Some(last.id.clone()),
                    _ => break,
                }
            }
        }
        AccountsCommand::DeleteTestData { account } => {
            let id = account_id(&account)?;
            let deleted = accounts.delete_test_data(&id).map_err(CliError::Account)?;
            println!("{:#}", deleted_json(&id, &deleted));
        }
        AccountsCommand::Delete { account } => {
            let id = account_id(&account)?;
            accounts.delete(&id).map_err(CliError::Account)?;
            println!("{:#}", deleted_account_json(&id));
        }
        AccountsCommand::Export { account, output } => {
            let id = account_id(&account)?;
            let export = accounts.export_test_data(&id).map_err(CliError::Account)?;
            let lines = export_lines(&export, services.clock.now());
            match output {
                Some(path) => std::fs::write(&path, lines)
                    .map_err(|source| CliError::File { path: path.display().to_string(), source })?,
                None => print!("{lines}"),
            }
        }
        AccountsCommand::Import { account, file } => {
            let id = account_id(&account)?;
            let opened = if file.as_os_str() == "-" {
                // Read again as it is stored: standard input is kept in an unnamed file first.
                tempfile::tempfile().and_then(|mut spooled| {
                    std::io::copy(&mut std::io::stdin(), &mut spooled)?;
                    Ok(spooled)
                })
            } else {
                std::fs::File::open(&file)
            };
            let path = if file.as_os_str() == "-" { "standard input".to_owned() } else { file.display().to_string() };
            let opened = opened.map_err(|source| CliError::File { path, source })?;
            let import = open_export(opened).map_err(|error| CliError::Account(ApplicationError::invalid(error)))?;
            let rows = accounts.import_test_data(&id, &import).map_err(CliError::Account)?;
            println!("{:#}", imported_json(&id, rows));
        }
    }
    Ok(())
}

fn account_id(text: &str) -> Result<AccountId, CliError> {
    AccountId::parse(text).ok_or_else(|| CliError::AccountId(text.to_owned()))
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
        println!("{:#}", new_account_json(&account, &keys, false));
    }
    tracing::info!(listen = %settings.listen, port = application.port(), "payments service listening");
    Ok(application.run_until_stopped().await?)
}
