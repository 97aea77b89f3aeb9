//! HTTP tests of the real application on port 0. A test of what storage does runs twice, on a fresh
//! SQLite file and on a fresh PostgreSQL database; a test of what happens before storage (input
//! refused while decoding or validating) or in the browser runs once, on SQLite.

// Tests unwrap freely: a panic is the failure report.
#![allow(clippy::unwrap_used)]

/// Declares each named `async fn(TestApp)` as two tests, `<name>::sqlite` and `<name>::postgres`.
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(crate::helpers::spawn_app(payments_adapters::db::Backend::Sqlite).await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name(crate::helpers::spawn_app(payments_adapters::db::Backend::Postgres).await).await;
            }
        }
    )*};
}

/// Declares each named `async fn(Backend)` as two tests, `<name>::sqlite` and `<name>::postgres`,
/// for scenarios that start their own service processes.
macro_rules! on_both_backends_unstarted {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(payments_adapters::db::Backend::Sqlite).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name(payments_adapters::db::Backend::Postgres).await;
            }
        }
    )*};
}

/// Declares each named `async fn(TestApp)` as one test, `<name>::sqlite`: for scenarios whose
/// outcome does not depend on the storage backend (requests refused before they reach storage, and
/// what a browser does with pages whose storage paths the HTTP tests cover on both backends).
macro_rules! on_one_backend {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(crate::helpers::spawn_app(payments_adapters::db::Backend::Sqlite).await).await;
            }
        }
    )*};
}

/// Declares each named `async fn(Backend)` as one test on SQLite, `<name>::sqlite`: for a test that
/// starts its application itself.
macro_rules! on_one_backend_unstarted {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                super::$name(payments_adapters::db::Backend::Sqlite).await;
            }
        }
    )*};
}

/// Declares each named `async fn(TestApp)` as one test, `<name>::postgres`: for what only
/// PostgreSQL does (several instances on one database hearing each other).
macro_rules! on_postgres {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                super::$name(crate::helpers::spawn_app(payments_adapters::db::Backend::Postgres).await).await;
            }
        }
    )*};
}

/// As `on_both_backends!`, with the test settings changed by `$configure` (a closure over
/// `&mut Settings`) before the application starts.
macro_rules! on_both_backends_with {
    ($configure:expr => $($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let backend = payments_adapters::db::Backend::Sqlite;
                super::$name(crate::helpers::spawn_app_with(backend, $configure).await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let backend = payments_adapters::db::Backend::Postgres;
                super::$name(crate::helpers::spawn_app_with(backend, $configure).await).await;
            }
        }
    )*};
}

/// As `on_both_backends!`, on an app whose webhook deliveries the test steps through
/// (`spawn_app_stepping_deliveries`).
macro_rules! on_both_backends_stepping_deliveries {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                let backend = payments_adapters::db::Backend::Sqlite;
                super::$name(crate::helpers::spawn_app_stepping_deliveries(backend).await).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                let backend = payments_adapters::db::Backend::Postgres;
                super::$name(crate::helpers::spawn_app_stepping_deliveries(backend).await).await;
            }
        }
    )*};
}

// Every other file of this directory is a module: a new test file runs without being registered.
// Cargo compiles this binary again when one of its files changes; after adding a file and nothing
// else, `touch` this one.
automod::dir!("tests/api");
