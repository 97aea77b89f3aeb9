//! TLS to PostgreSQL against a cluster the test starts itself with `ssl = on`, a certificate for
//! `localhost` signed by a CA of its own, and no connection allowed without TLS.

use payments_adapters::db::tls_cluster::TlsCluster;
use payments_adapters::db::{DatabaseError, DatabaseUrl, PoolSettings, PostgresTls, TlsMode};
use payments_application::error::cause_chain;
use std::path::PathBuf;
use std::time::Duration;

fn connect(url: &str, mode: TlsMode, ca_file: Option<PathBuf>) -> Result<(), String> {
    let url = DatabaseUrl::parse(url)?.with_tls(&PostgresTls { mode: Some(mode), ca_file })?;
    let settings = PoolSettings { max_size: 2, connection_timeout: Duration::from_secs(5) };
    url.connect(settings).map(drop).map_err(|error: DatabaseError| cause_chain(&error))
}

#[test]
fn verify_full_connects_with_the_right_ca_and_host_and_refuses_a_wrong_one() {
    let cluster = TlsCluster::start();
    let certified = cluster.url(TlsCluster::CERTIFIED_HOST);

    // The whole startup path (connection, migrations, pool) over verified TLS.
    connect(&certified, TlsMode::VerifyFull, Some(cluster.ca_file())).expect("verify-full with the right CA and host");

    let wrong_ca = connect(&certified, TlsMode::VerifyFull, Some(cluster.unrelated_ca_file())).unwrap_err();
    assert!(wrong_ca.contains("certificate verify failed"), "{wrong_ca}");

    let wrong_host = connect(&cluster.url("127.0.0.1"), TlsMode::VerifyFull, Some(cluster.ca_file())).unwrap_err();
    assert!(wrong_host.contains("does not match host name \"127.0.0.1\""), "{wrong_host}");
    // verify-ca checks the CA but not the name.
    connect(&cluster.url("127.0.0.1"), TlsMode::VerifyCa, Some(cluster.ca_file())).expect("verify-ca ignores the host");
}

#[test]
fn require_encrypts_without_a_ca_and_the_server_refuses_plain_text() {
    let cluster = TlsCluster::start();
    let url = cluster.url("127.0.0.1");
    connect(&url, TlsMode::Require, None).expect("require needs no CA");
    let plain = connect(&url, TlsMode::Disable, None).unwrap_err();
    assert!(plain.contains("no encryption"), "the server's pg_hba.conf refuses plain text: {plain}");
}
