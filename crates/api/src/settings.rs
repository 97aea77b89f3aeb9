//! Configuration: `config/default.toml` (built in), then `config/{environment}.toml`, then
//! `PAYMENTS__SECTION__KEY` environment variables; validated once at startup.

use config::{Config, Environment, File, FileFormat};
use payments_adapters::db::{DatabaseUrl, PoolSettings, PostgresTls, TlsMode};
use payments_domain::balance::SettlementDelays;
use payments_domain::payment::{FeeRate, FeeSchedule};
use serde::Deserialize;
use std::net::SocketAddr;
use std::ops::RangeInclusive;
use std::time::Duration;

const DEFAULTS: &str = include_str!("../../../config/default.toml");

/// Settings as read, before validation.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub database: DatabaseSettings,
    pub log: LogSettings,
    pub fees: FeesSettings,
    pub settlement: SettlementSettings,
    pub webhooks: WebhookSettings,
    pub mail: MailSettings,
    pub rate_limit: RateLimitSettings,
    pub metrics: MetricsSettings,
    pub request_log: RequestLogSettings,
    pub event_streams: EventStreamSettings,
    pub console: ConsoleSettings,
    pub operator: OperatorSettings,
    pub live_processor: LiveProcessorSettings,
}

/// The request log of each account.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct RequestLogSettings {
    pub enabled: bool,
    /// Days an entry is kept.
    pub retention_days: u32,
    /// Entries an account keeps in each mode, the newest.
    pub max_rows_per_account: u32,
    /// Bytes of entries (paths, queries and bodies) an account keeps in each mode, the newest.
    pub max_bytes_per_account: u64,
}

/// `GET /events/stream`: how many may be open at once.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct EventStreamSettings {
    /// For one secret key (an account's mode).
    pub max_per_key: usize,
    /// In this instance, for every key together.
    pub max_per_instance: usize,
}

/// The developer console at `/dashboard`.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct ConsoleSettings {
    pub enabled: bool,
    /// Minutes without a request after which a signed-in session ends.
    pub idle_timeout_minutes: u32,
}

/// The processor live payments go through.
#[derive(Clone, Deserialize)]
pub struct LiveProcessorSettings {
    /// What live payments of an account without a connector of its own go through.
    pub connector: LiveConnector,
    /// The key the processors' secrets are sealed with: 64 hexadecimal digits (32 random bytes).
    /// Empty: no account's connector can be set.
    pub credentials_key: String,
}

/// Which connector live payments go through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LiveConnector {
    /// None: a live attach answers 503.
    None,
    /// The simulator behind the connector port, in this process's memory: live mode's flows with
    /// test cards' tokens, and no money. For trying live mode's flows and for tests.
    Simulated,
}

/// The operator API for accounts: off while the token is empty.
#[derive(Clone, Deserialize)]
pub struct OperatorSettings {
    pub token: String,
    pub import_limit_bytes: usize,
}

/// Shortest operator token accepted: a token is a secret, not a password to remember.
const MIN_OPERATOR_TOKEN_LENGTH: usize = 32;

impl OperatorSettings {
    /// The token, when the operator API is on.
    #[must_use]
    pub fn token(&self) -> Option<&str> {
        // Trimmed: a token read from a file or a secret store often ends with a newline.
        Some(self.token.trim()).filter(|token| !token.is_empty())
    }
}

impl std::fmt::Debug for LiveProcessorSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = if self.credentials_key.is_empty() { "none" } else { "[set]" };
        f.debug_struct("LiveProcessorSettings")
            .field("connector", &self.connector)
            .field("credentials_key", &key)
            .finish()
    }
}

impl std::fmt::Debug for OperatorSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = if self.token.is_empty() { "none" } else { "[set]" };
        f.debug_struct("OperatorSettings")
            .field("token", &token)
            .field("import_limit_bytes", &self.import_limit_bytes)
            .finish()
    }
}

/// Whether `/metrics` answers, and the bearer token it then asks for (empty: none).
#[derive(Clone, Deserialize)]
pub struct MetricsSettings {
    pub enabled: bool,
    pub bearer_token: String,
}

impl std::fmt::Debug for MetricsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let token = if self.bearer_token.is_empty() { "none" } else { "[set]" };
        f.debug_struct("MetricsSettings").field("enabled", &self.enabled).field("bearer_token", &token).finish()
    }
}

/// Token buckets per instance: per API key, and per client address for requests without a key.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct RateLimitSettings {
    pub enabled: bool,
    /// Requests a second a key may sustain, and how many it may send at once.
    pub per_key_per_second: u32,
    pub per_key_burst: u32,
    /// The same for a client address (hosted pages, requests without a key).
    pub per_address_per_second: u32,
    pub per_address_burst: u32,
}

/// E-mail of billing statements.
#[derive(Debug, Clone, Deserialize)]
pub struct MailSettings {
    /// `smtp://host:port` (STARTTLS with `?tls=required`) or `smtps://user:password@host:port`;
    /// empty keeps every message in the outbox for the test mailbox.
    pub smtp_url: String,
    /// The sender, `billing@example.com` or `Shop Billing <billing@example.com>`.
    pub from: String,
    /// How long one SMTP conversation may take.
    pub timeout_seconds: u64,
    /// Whether `GET /test/mailbox` shows test-mode e-mail (to the holder of a test secret key).
    pub mailbox: bool,
}

impl MailSettings {
    /// The SMTP URL, when one is configured.
    #[must_use]
    pub fn smtp_url(&self) -> Option<&str> {
        Some(self.smtp_url.trim()).filter(|url| !url.is_empty())
    }
}

/// Webhook delivery.
#[derive(Debug, Clone, Deserialize)]
pub struct WebhookSettings {
    pub timeout_seconds: u64,
    pub retry_base_ms: i64,
    pub retry_cap_ms: i64,
    pub jitter: f64,
    pub give_up_after_seconds: i64,
    /// Deliveries in flight at once, in all.
    pub concurrency: usize,
    /// Deliveries in flight at once to one webhook's endpoint.
    pub per_endpoint_concurrency: usize,
    /// Deliveries in flight at once for one account.
    pub per_account_concurrency: usize,
    pub lease_seconds: u64,
    pub poll_interval_ms: u64,
    /// Whether test-mode webhooks may target loopback and private addresses.
    pub allow_private_targets_in_test: bool,
    /// How long a rotated-out webhook secret still signs deliveries (`rotate_secret`), 0 to 720.
    pub secret_overlap_hours: u32,
}

/// The fee of each payment method.
#[derive(Debug, Clone, Deserialize)]
pub struct FeesSettings {
    pub card: FeeSettings,
    pub gcash: FeeSettings,
    pub maya: FeeSettings,
    pub billease: FeeSettings,
    pub qrph: FeeSettings,
}

/// Hours after a payment is paid until its money is available for payout, per method.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct SettlementSettings {
    pub card_hours: i64,
    pub gcash_hours: i64,
    pub maya_hours: i64,
    pub billease_hours: i64,
    pub qrph_hours: i64,
}

impl SettlementSettings {
    fn each(&self) -> [(&'static str, i64); 5] {
        [
            ("card_hours", self.card_hours),
            ("gcash_hours", self.gcash_hours),
            ("maya_hours", self.maya_hours),
            ("billease_hours", self.billease_hours),
            ("qrph_hours", self.qrph_hours),
        ]
    }
}

/// Basis points of the amount plus fixed centavos.
#[derive(Debug, Clone, Copy, Deserialize)]
pub struct FeeSettings {
    pub basis_points: i64,
    pub fixed: i64,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    pub listen: String,
    pub public_base_url: String,
    pub body_limit_bytes: usize,
    pub request_timeout_seconds: u64,
    pub workers: usize,
    pub shutdown_grace_seconds: u64,
}

#[derive(Clone, Deserialize)]
pub struct DatabaseSettings {
    pub url: String,
    pub pool_size: u32,
    pub connect_timeout_seconds: u64,
    /// libpq's `sslmode` for PostgreSQL; empty keeps the URL's (libpq's default is `prefer`).
    pub tls_mode: String,
    /// The PEM file of the CA that signed PostgreSQL's certificate; empty keeps the URL's.
    pub tls_ca_file: String,
}

impl DatabaseSettings {
    /// The TLS settings, or a message naming the bad key.
    fn tls(&self) -> Result<PostgresTls, String> {
        let mode = match self.tls_mode.trim() {
            "" => None,
            mode => Some(TlsMode::parse(mode).ok_or_else(|| {
                let modes: Vec<&str> = TlsMode::ALL.iter().map(|mode| mode.as_str()).collect();
                format!("database.tls_mode: {mode} is not one of {}", modes.join(", "))
            })?),
        };
        let ca_file = Some(self.tls_ca_file.trim()).filter(|path| !path.is_empty()).map(std::path::PathBuf::from);
        if let Some(path) = &ca_file {
            std::fs::File::open(path)
                .map_err(|error| format!("database.tls_ca_file: cannot read {}: {error}", path.display()))?;
        }
        Ok(PostgresTls { mode, ca_file })
    }
}

impl std::fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseSettings")
            .field("url", &DatabaseUrl::parse(&self.url).map_or_else(|e| e, |url| format!("{url:?}")))
            .field("pool_size", &self.pool_size)
            .field("connect_timeout_seconds", &self.connect_timeout_seconds)
            .field("tls_mode", &self.tls_mode)
            .field("tls_ca_file", &self.tls_ca_file)
            .finish()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    pub format: LogFormat,
    pub level: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    Pretty,
    Json,
}

/// Settings that passed validation, in the types the application uses.
#[derive(Debug, Clone)]
pub struct ValidSettings {
    pub listen: SocketAddr,
    pub public_base_url: url::Url,
    pub body_limit_bytes: usize,
    /// How long a client has to send a whole request body.
    pub request_timeout: Duration,
    /// How long requests in flight and the workers have to finish once stopping begins.
    pub shutdown_grace: Duration,
    pub workers: usize,
    pub database_url: DatabaseUrl,
    pub pool: PoolSettings,
    pub log: LogSettings,
    pub fees: FeeSchedule,
    pub settlement: SettlementDelays,
    pub webhooks: WebhookSettings,
    pub mail: MailSettings,
    pub rate_limit: RateLimitSettings,
    pub metrics: MetricsSettings,
    pub request_log: RequestLogSettings,
    pub event_streams: EventStreamSettings,
    pub console: ConsoleSettings,
    pub operator: OperatorSettings,
    pub live_processor: LiveProcessorSettings,
}

impl Settings {
    /// Reads the layers: built-in defaults, `{config_dir}/{environment}.toml` if present, environment.
    ///
    /// `PAYMENTS_ENVIRONMENT` names the environment (default `local`); `PAYMENTS_CONFIG_DIR` the
    /// directory of the files (default `config`).
    ///
    /// # Errors
    /// A message naming the file or variable that could not be read.
    pub fn load() -> Result<Self, String> {
        let environment = std::env::var("PAYMENTS_ENVIRONMENT").unwrap_or_else(|_| "local".to_owned());
        let directory = std::env::var("PAYMENTS_CONFIG_DIR").unwrap_or_else(|_| "config".to_owned());
        Config::builder()
            .add_source(File::from_str(DEFAULTS, FileFormat::Toml))
            .add_source(File::with_name(&format!("{directory}/{environment}")).required(false))
            .add_source(Environment::with_prefix("PAYMENTS").prefix_separator("__").separator("__").try_parsing(true))
            .build()
            .and_then(Config::try_deserialize)
            .map_err(|error| format!("invalid configuration: {error}"))
    }

    /// Checks every value, reporting all problems at once.
    ///
    /// # Errors
    /// One line per bad value, naming its key.
    pub fn validate(&self) -> Result<ValidSettings, String> {
        let mut problems = Vec::new();
        let listen = self
            .server
            .listen
            .parse::<SocketAddr>()
            .map_err(|_| problems.push(format!("server.listen: {} is not an address:port", self.server.listen)))
            .ok();
        let public_base_url = url::Url::parse(&self.server.public_base_url)
            .ok()
            .filter(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some());
        if public_base_url.is_none() {
            problems.push(format!("server.public_base_url: {} is not an http(s) URL", self.server.public_base_url));
        }
        let database_url = DatabaseUrl::parse(&self.database.url)
            .map_err(|e| format!("database.url: {e}"))
            .and_then(|url| {
                let tls = self.database.tls()?;
                url.with_tls(&tls).map_err(|e| format!("database: {e}"))
            })
            .map_err(|problem| problems.push(problem))
            .ok();
        self.check_bounds(&mut problems);
        self.webhooks.check(&mut problems);
        self.mail.check(&mut problems);
        if let Err(error) = payments_adapters::sealer::AesGcmSealer::new(&self.live_processor.credentials_key) {
            problems.push(error.to_string());
        }
        if tracing_subscriber::EnvFilter::try_new(&self.log.level).is_err() {
            problems.push(format!("log.level: {} is not a log level or filter", self.log.level));
        }
        match (listen, public_base_url, database_url) {
            (Some(listen), Some(public_base_url), Some(database_url)) if problems.is_empty() => Ok(ValidSettings {
                listen,
                public_base_url,
                body_limit_bytes: self.server.body_limit_bytes,
                request_timeout: Duration::from_secs(self.server.request_timeout_seconds),
                shutdown_grace: Duration::from_secs(self.server.shutdown_grace_seconds),
                workers: self.server.workers,
                database_url,
                pool: PoolSettings {
                    max_size: self.database.pool_size,
                    connection_timeout: Duration::from_secs(self.database.connect_timeout_seconds),
                },
                log: self.log.clone(),
                fees: FeeSchedule {
                    card: rate(self.fees.card),
                    gcash: rate(self.fees.gcash),
                    maya: rate(self.fees.maya),
                    billease: rate(self.fees.billease),
                    qrph: rate(self.fees.qrph),
                },
                settlement: SettlementDelays {
                    card_seconds: self.settlement.card_hours * 3_600,
                    gcash_seconds: self.settlement.gcash_hours * 3_600,
                    maya_seconds: self.settlement.maya_hours * 3_600,
                    billease_seconds: self.settlement.billease_hours * 3_600,
                    qrph_seconds: self.settlement.qrph_hours * 3_600,
                },
                webhooks: self.webhooks.clone(),
                mail: self.mail.clone(),
                rate_limit: self.rate_limit,
                metrics: self.metrics.clone(),
                request_log: self.request_log,
                event_streams: self.event_streams,
                console: self.console,
                operator: self.operator.clone(),
                live_processor: self.live_processor.clone(),
            }),
            _ => Err(format!("invalid configuration:\n  {}", problems.join("\n  "))),
        }
    }
}

impl Settings {
    /// The numbers that must lie within bounds.
    fn check_bounds(&self, problems: &mut Vec<String>) {
        let (server, database, log) = (&self.server, &self.database, &self.request_log);
        within(problems, "server.body_limit_bytes", server.body_limit_bytes, 1024..=64 * 1024 * 1024);
        within(problems, "server.shutdown_grace_seconds", server.shutdown_grace_seconds, 1..=600);
        within(problems, "server.request_timeout_seconds", server.request_timeout_seconds, 1..=600);
        within(problems, "database.pool_size", database.pool_size, 1..=200);
        within(problems, "database.connect_timeout_seconds", database.connect_timeout_seconds, 1..=300);
        for (method, fee) in self.fees.each() {
            within(problems, &format!("fees.{method}.basis_points"), fee.basis_points, 0..=10_000);
            within(problems, &format!("fees.{method}.fixed"), fee.fixed, 0..=1_000_000);
        }
        for (name, hours) in self.settlement.each() {
            within(problems, &format!("settlement.{name}"), hours, 0..=24 * 60);
        }
        let limits = &self.rate_limit;
        for (name, value) in [
            ("per_key_per_second", limits.per_key_per_second),
            ("per_key_burst", limits.per_key_burst),
            ("per_address_per_second", limits.per_address_per_second),
            ("per_address_burst", limits.per_address_burst),
        ] {
            within(problems, &format!("rate_limit.{name}"), value, 1..=u32::MAX);
        }
        within(problems, "request_log.retention_days", log.retention_days, 1..=365);
        within(problems, "request_log.max_rows_per_account", log.max_rows_per_account, 100..=100_000_000);
        within(problems, "request_log.max_bytes_per_account", log.max_bytes_per_account, 1 << 20..=1 << 40);
        within(problems, "event_streams.max_per_key", self.event_streams.max_per_key, 1..=10_000);
        within(problems, "event_streams.max_per_instance", self.event_streams.max_per_instance, 1..=100_000);
        within(problems, "console.idle_timeout_minutes", self.console.idle_timeout_minutes, 1..=7 * 24 * 60);
        within(problems, "operator.import_limit_bytes", self.operator.import_limit_bytes, 1024..=1 << 30);
        if !self.operator.token.is_empty()
            && self.operator.token().is_none_or(|token| token.chars().count() < MIN_OPERATOR_TOKEN_LENGTH)
        {
            problems.push(format!(
                "operator.token: must be empty (the operator API off) or at least {MIN_OPERATOR_TOKEN_LENGTH} characters"
            ));
        }
    }
}

impl WebhookSettings {
    fn check(&self, problems: &mut Vec<String>) {
        within(problems, "webhooks.timeout_seconds", self.timeout_seconds, 1..=60);
        within(problems, "webhooks.secret_overlap_hours", self.secret_overlap_hours, 0..=720);
        within(problems, "webhooks.jitter", self.jitter, 0.0..=1.0);
        within(problems, "webhooks.concurrency", self.concurrency, 1..=1_000);
        within(problems, "webhooks.poll_interval_ms", self.poll_interval_ms, 1..=u64::MAX);
        within(problems, "webhooks.per_endpoint_concurrency", self.per_endpoint_concurrency, 1..=self.concurrency);
        within(problems, "webhooks.per_account_concurrency", self.per_account_concurrency, 1..=self.concurrency);
        if self.retry_base_ms < 1 || self.retry_cap_ms < self.retry_base_ms || self.give_up_after_seconds < 1 {
            problems.push(
                "webhooks: retry_base_ms must be positive, retry_cap_ms at least it, give_up_after_seconds positive"
                    .to_owned(),
            );
        }
        if self.lease_seconds <= self.timeout_seconds {
            problems.push("webhooks.lease_seconds: must be longer than timeout_seconds".to_owned());
        }
    }
}

impl MailSettings {
    fn check(&self, problems: &mut Vec<String>) {
        if !payments_adapters::mail::valid_sender(&self.from) {
            problems.push(format!("mail.from: {} is not an e-mail address", self.from));
        }
        within(problems, "mail.timeout_seconds", self.timeout_seconds, 1..=300);
        if let Some(url) = self.smtp_url() {
            if let Err(error) = payments_adapters::mail::SmtpMailer::new(url, std::time::Duration::from_secs(1)) {
                problems.push(format!("{error}"));
            }
        }
    }
}

impl FeesSettings {
    /// Each payment method's fee, by the method's name.
    fn each(&self) -> [(&'static str, FeeSettings); 5] {
        [
            ("card", self.card),
            ("gcash", self.gcash),
            ("maya", self.maya),
            ("billease", self.billease),
            ("qrph", self.qrph),
        ]
    }
}

/// Names `name` in `problems` unless `value` lies in `range`.
fn within<T: PartialOrd + std::fmt::Display>(
    problems: &mut Vec<String>,
    name: &str,
    value: T,
    range: RangeInclusive<T>,
) {
    if !range.contains(&value) {
        problems.push(format!("{name}: must be from {} to {}", range.start(), range.end()));
    }
}

fn rate(fee: FeeSettings) -> FeeRate {
    FeeRate { basis_points: fee.basis_points, fixed: fee.fixed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn defaults() -> Settings {
        Config::builder()
            .add_source(File::from_str(DEFAULTS, FileFormat::Toml))
            .build()
            .and_then(Config::try_deserialize)
            .expect("the built-in defaults deserialize")
    }

    #[test]
    fn the_defaults_are_valid_and_use_sqlite_on_port_8080() {
        let valid = defaults().validate().expect("valid defaults");
        assert_eq!(valid.listen.port(), 8080);
        assert_eq!(valid.database_url.backend(), payments_adapters::db::Backend::Sqlite);
    }

    #[test]
    fn every_bad_value_is_named() {
        let mut settings = defaults();
        settings.server.listen = "nowhere".into();
        settings.server.public_base_url = "ftp://x".into();
        settings.database.url = "mysql://db".into();
        settings.database.pool_size = 0;
        settings.fees.card.basis_points = 10_001;
        let message = settings.validate().unwrap_err();
        for key in ["server.listen", "server.public_base_url", "database.url", "database.pool_size", "fees.card"] {
            assert!(message.contains(key), "{key} missing from: {message}");
        }
    }

    #[test]
    fn tls_settings_are_checked_before_any_connection() {
        let mut settings = defaults();
        settings.database.url = "postgres://payments@db.example/payments".into();
        settings.database.tls_mode = "verify_full".into();
        let message = settings.validate().unwrap_err();
        assert!(message.contains("database.tls_mode: verify_full is not one of disable, prefer"), "{message}");
        settings.database.tls_mode = "verify-full".into();
        let message = settings.validate().unwrap_err();
        assert!(message.contains("set the CA certificate file (tls_ca_file)"), "{message}");
        settings.database.tls_ca_file = "/nonexistent/root.pem".into();
        let message = settings.validate().unwrap_err();
        assert!(message.contains("database.tls_ca_file: cannot read /nonexistent/root.pem"), "{message}");
        settings.database.tls_ca_file = "Cargo.toml".into();
        let valid = settings.validate().expect("a readable CA file");
        assert!(format!("{:?}", valid.database_url).contains("sslmode=verify-full&sslrootcert=Cargo.toml"));
        settings.database.url = "sqlite://data/payments.db".into();
        assert!(settings.validate().unwrap_err().contains("PostgreSQL only"));
    }
}
