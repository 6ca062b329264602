//! The `morris` command line: parse, run, report errors with a meaningful exit code.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if cli::is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            if let Some(advice) = cli::advice(&err) {
                eprintln!("  hint: {advice}");
            }
            ExitCode::from(2)
        }
    }
}
