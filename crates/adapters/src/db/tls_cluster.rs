//! A throwaway PostgreSQL cluster with `ssl = on`, for the TLS tests: `initdb` in a temporary
//! directory, its own port, a CA of its own that signed a certificate for `localhost`, and a
//! `pg_hba.conf` that refuses every connection without TLS. Stopped and removed when dropped.
//!
//! The server programs are found with `pg_config --bindir`, in Debian's `/usr/lib/postgresql/N/bin`,
//! then on `PATH`. PostgreSQL refuses to
//! run as root, so under root the cluster runs as the `postgres` user (through `runuser`).

use rand::distr::{Alphanumeric, SampleString};
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;

/// A running cluster; the host name its certificate holds is `localhost`.
#[derive(Debug)]
pub struct TlsCluster {
    directory: PathBuf,
    port: u16,
    bin: PathBuf,
}

impl TlsCluster {
    /// The name in the server's certificate.
    pub const CERTIFIED_HOST: &'static str = "localhost";

    /// Creates the certificates and the cluster, and starts it.
    ///
    /// # Panics
    /// When a certificate cannot be made or `initdb` or `pg_ctl` fails (with their output).
    #[must_use]
    pub fn start() -> Self {
        let directory =
            std::env::temp_dir().join(format!("payments-tls-{}", Alphanumeric.sample_string(&mut rand::rng(), 10)));
        std::fs::create_dir_all(&directory).expect("create the cluster directory");
        let port =
            TcpListener::bind("127.0.0.1:0").and_then(|listener| listener.local_addr()).expect("a free port").port();
        let cluster = Self { directory, port, bin: server_bin_directory() };

        let (ca_pem, server_pem, server_key_pem) = certificates("payments test CA", Self::CERTIFIED_HOST);
        std::fs::write(cluster.ca_file(), ca_pem).expect("write the CA certificate");
        std::fs::write(cluster.directory.join("server.crt"), server_pem).expect("write the server certificate");
        let key = cluster.directory.join("server.key");
        std::fs::write(&key, server_key_pem).expect("write the server key");
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600)).expect("make the key private");
        if running_as_root() {
            run(Command::new("chown").arg("-R").arg("postgres:").arg(&cluster.directory));
        }

        let data = cluster.directory.join("data");
        run(cluster
            .server_command("initdb")
            .arg("--auth=trust")
            .arg("--username=postgres")
            .arg("--no-sync")
            .arg("-D")
            .arg(&data));
        std::fs::write(
            data.join("pg_hba.conf"),
            "hostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
        )
        .expect("write pg_hba.conf");
        let options = format!(
            "-p {port} -k {dir} -c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file={dir}/server.crt \
             -c ssl_key_file={dir}/server.key -c fsync=off",
            port = cluster.port,
            dir = cluster.directory.display()
        );
        run(cluster
            .server_command("pg_ctl")
            .arg("-D")
            .arg(&data)
            .arg("-l")
            .arg(cluster.directory.join("server.log"))
            .arg("-o")
            .arg(options)
            .arg("-w")
            .arg("start"));
        cluster
    }

    /// The PEM file of the CA that signed the server's certificate.
    #[must_use]
    pub fn ca_file(&self) -> PathBuf {
        self.directory.join("ca.crt")
    }

    /// A URL naming `host` for the certificate check while connecting to 127.0.0.1 (libpq's
    /// `hostaddr`), with no TLS parameter.
    #[must_use]
    pub fn url(&self, host: &str) -> String {
        format!("postgres://postgres@{host}:{}/postgres?hostaddr=127.0.0.1", self.port)
    }

    /// A CA certificate that signed nothing of this cluster's, written beside the real one.
    #[must_use]
    pub fn unrelated_ca_file(&self) -> PathBuf {
        let path = self.directory.join("unrelated-ca.crt");
        std::fs::write(&path, certificates("unrelated test CA", Self::CERTIFIED_HOST).0)
            .expect("write the unrelated CA");
        path
    }

    fn server_command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if running_as_root() {
            let mut command = Command::new("runuser");
            command.arg("-u").arg("postgres").arg("--").arg(program);
            command
        } else {
            Command::new(program)
        }
    }
}

impl Drop for TlsCluster {
    fn drop(&mut self) {
        let data = self.directory.join("data");
        let _stopped =
            self.server_command("pg_ctl").arg("-D").arg(&data).args(["-m", "immediate", "-w", "stop"]).output();
        let _removed = std::fs::remove_dir_all(&self.directory);
    }
}

/// A CA certificate named `ca_name`, and a certificate and key for `host` signed by it, in PEM.
fn certificates(ca_name: &str, host: &str) -> (String, String, String) {
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).expect("CA parameters");
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, ca_name);
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate().expect("CA key")).expect("CA certificate");
    let server_key = KeyPair::generate().expect("server key");
    let mut server_params = CertificateParams::new(vec![host.to_owned()]).expect("server parameters");
    server_params.distinguished_name.push(DnType::CommonName, host);
    let server = server_params.signed_by(&server_key, &ca).expect("server certificate");
    (ca.pem(), server.pem(), server_key.serialize_pem())
}

fn server_bin_directory() -> PathBuf {
    let from_pg_config = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .ok()
        .filter(|output| output.status.success())
        .map(|output| PathBuf::from(String::from_utf8_lossy(&output.stdout).trim()));
    // Debian keeps the server programs per version, off PATH.
    let newest_debian = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|version| version.path().join("bin"))
        .max_by_key(|bin| bin.parent().and_then(|v| v.file_name()?.to_str()?.parse::<u32>().ok()));
    from_pg_config.into_iter().chain(newest_debian).find(|bin| bin.join("initdb").exists()).unwrap_or_default()
}

fn running_as_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|output| output.stdout.trim_ascii() == b"0")
}

fn run(command: &mut Command) {
    let output = command.output().unwrap_or_else(|error| panic!("cannot run {command:?}: {error}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}
