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
            // Errors that wrap another print its text already: say each thing once.
            let mut said = err.to_string();
            for cause in err.chain().skip(1) {
                let text = cause.to_string();
                if !said.contains(&text) {
                    eprintln!("  caused by: {text}");
                }
                said = text;
            }
            if let Some(advice) = cli::advice(&err) {
                eprintln!("  hint: {advice}");
            }
            ExitCode::from(2)
        }
    }
}
