//! The `payments` binary: parse the command line and run it; a failure is printed with its causes.

fn main() -> std::process::ExitCode {
    match payments_api::cli::run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("payments: {}", payments_application::error::cause_chain(&error));
            std::process::ExitCode::FAILURE
        }
    }
}
