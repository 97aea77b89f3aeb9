//! The `payments` binary: parse the command line and run it.

fn main() -> std::process::ExitCode {
    match payments_api::cli::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("payments: {message}");
            std::process::ExitCode::FAILURE
        }
    }
}
