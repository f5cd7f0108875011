// SPDX-License-Identifier: GPL-2.0
//! `rfprobe`: discover kernel functions and types, check rfprobe
//! definitions offline, and drive rfprobe events. See `rfprobe --help` and
//! Documentation/rfprobe-tool.rst.

fn main() -> std::process::ExitCode {
    let cli = rfprobe_tool::cli::Cli::parse_args(std::env::args_os());
    match rfprobe_tool::cli::run(cli) {
        Ok(status) => std::process::ExitCode::from(status as u8),
        Err(e) => {
            // `rfprobe funcs | head` closes the pipe: not an error.
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            {
                return std::process::ExitCode::SUCCESS;
            }
            eprintln!("rfprobe: {e:#}");
            let status = if e.downcast_ref::<rfprobe_tool::status::NoMatch>().is_some() {
                rfprobe_tool::status::Status::Rejected
            } else {
                rfprobe_tool::status::Status::Unreadable
            };
            std::process::ExitCode::from(status as u8)
        }
    }
}
