use std::process::ExitCode;

fn main() -> ExitCode {
    fleetsim::cli::main()
}
