//! The `payments` binary: parse the command line and run it; a failure is printed with its causes.

/// mimalloc rather than glibc's malloc, whose arenas and consolidation took 13% of the service's
/// CPU under the charge benchmark (docs/benchmarks.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    match payments_api::cli::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("payments: {}", payments_application::error::cause_chain(&error));
            std::process::ExitCode::FAILURE
        }
    }
}
