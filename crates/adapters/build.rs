//! Rebuilds the crate when a migration is added or changed: `embed_migrations!` reads the
//! migrations directories at compile time, and cargo would not otherwise look at them. Also names
//! the PostgreSQL migrations' content with a digest (`PAYMENTS_POSTGRES_MIGRATIONS_DIGEST`), which
//! names the migrated template test databases are cloned from (`db::testing`).

use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=../../migrations");
    let mut digest = Fnv1a::default();
    digest_directory(Path::new("../../migrations/postgres"), &mut digest);
    println!("cargo:rustc-env=PAYMENTS_POSTGRES_MIGRATIONS_DIGEST={:016x}", digest.0);
}

/// Feeds every file's path and bytes under `directory` to `digest`, in name order.
fn digest_directory(directory: &Path, digest: &mut Fnv1a) {
    let Ok(entries) = std::fs::read_dir(directory) else { return };
    let mut paths: Vec<_> = entries.filter_map(Result::ok).map(|entry| entry.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            digest_directory(&path, digest);
        } else if let Ok(bytes) = std::fs::read(&path) {
            digest.write(path.to_string_lossy().as_bytes());
            digest.write(&bytes);
        }
    }
}

/// The 64-bit FNV-1a hash: enough to tell one set of migrations from another.
struct Fnv1a(u64);

impl Default for Fnv1a {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv1a {
    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
