// SPDX-License-Identifier: GPL-2.0
//! `rfprobe`: discover kernel functions and types, check rfprobe
//! definitions offline, and drive rfprobe events. See `rfprobe --help` and
//! Documentation/rfprobe-tool.rst.

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = rfprobe_tool::cli::Cli::parse();
    match rfprobe_tool::cli::run(cli) {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(e) => {
            // `rfprobe funcs | head` closes the pipe: not an error.
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("rfprobe: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
