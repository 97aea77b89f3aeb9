//! The binary against a PostgreSQL that requires TLS (a throwaway cluster of the test's own):
//! `verify-full` with the right CA serves, and a wrong CA or host stops startup with the reason.

use payments_adapters::db::tls_cluster::TlsCluster;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

fn payments(database_url: &str, ca_file: &Path, port: u16) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_payments"));
    command
        .arg("serve")
        .env("PAYMENTS__DATABASE__URL", database_url)
        .env("PAYMENTS__DATABASE__TLS_MODE", "verify-full")
        .env("PAYMENTS__DATABASE__TLS_CA_FILE", ca_file)
        .env("PAYMENTS__SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("PAYMENTS__SERVER__PUBLIC_BASE_URL", format!("http://127.0.0.1:{port}"))
        .env("PAYMENTS__LOG__LEVEL", "warn");
    command
}

#[tokio::test]
async fn startup_verifies_the_database_certificate() {
    let cluster = TlsCluster::start();
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();

    for (url, ca_file, reason) in [
        (cluster.url(TlsCluster::CERTIFIED_HOST), cluster.unrelated_ca_file(), "certificate verify failed"),
        (cluster.url("127.0.0.1"), cluster.ca_file(), "does not match host name \"127.0.0.1\""),
    ] {
        let output = payments(&url, &ca_file, port).output().expect("run the payments binary");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "started despite {reason}");
        assert!(stderr.contains("payments: cannot open the database") && stderr.contains(reason), "{stderr}");
    }

    let mut served = payments(&cluster.url(TlsCluster::CERTIFIED_HOST), &cluster.ca_file(), port)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the payments binary");
    let client = reqwest::Client::new();
    let mut ready = false;
    for _ in 0..100 {
        let answer = client.get(format!("http://127.0.0.1:{port}/readyz")).send().await;
        if answer.is_ok_and(|answer| answer.status() == 200) {
            ready = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    served.kill().unwrap();
    served.wait().unwrap();
    assert!(ready, "the service did not become ready over verified TLS");
}

/// OpenSSL's exit handler used to free its state while a pool thread was still opening a TLS
/// connection, and a command that ends at once crashed about one run in three.
#[test]
fn a_command_over_tls_exits_cleanly() {
    let cluster = TlsCluster::start();
    for run in 0..20 {
        let output = Command::new(env!("CARGO_BIN_EXE_payments"))
            .args(["accounts", "create", "--name", "Exit"])
            .env("PAYMENTS__DATABASE__URL", cluster.url("127.0.0.1"))
            .env("PAYMENTS__DATABASE__TLS_MODE", "require")
            .output()
            .expect("run the payments binary");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "run {run} ended with {:?}: {stderr}", output.status);
    }
}
