// SPDX-License-Identifier: GPL-2.0
//! A definition line to a [`ProbeDef`]: the parser of the line's kind, by
//! its first letter (`f` and `t`: [`super::parse`], `w`:
//! [`super::wparse`]).

use super::cmdline::tokens;
use super::errors::{Failure, ECANCELED};
use super::kstr::cstr;
use super::parse::parse_ft_definition;
use super::probe::ProbeDef;
use super::resolve::ProbeEnv;
use super::wparse::parse_watch;

/// Parses one definition line (`f`, `t` or `w`) into `def` (reset first).
///
/// On success the definition is complete: names, arguments ([`ArgDesc`]),
/// entry arguments and field layout. Registration (symbol attachment,
/// `@SYM` resolution, name clashes, appending to an existing event) is the
/// caller's job; see [`super::multi`] and
/// [`super::parse::registration_failure`].
///
/// Errors carry the errno C returns and the `error_log` entries C writes,
/// with caret columns; render them with
/// [`super::errors::write_error_log_entry`] and
/// [`ProbeDef::write_log_command`] (the definition keeps what is needed to
/// print the command like C even after a failure).
///
/// Returns `-ECANCELED` (no entry) for lines that are not definitions (an
/// `f` or `t` line needs two words; see [`super::cmdline::classify`]).
pub fn parse_definition<E: ProbeEnv + ?Sized>(
    line: &[u8],
    env: &E,
    def: &mut ProbeDef,
) -> Result<(), Failure> {
    parse_definition_for(line, env, def, None)
}

/// [`parse_definition`] with the arguments typed by the BTF prototype of
/// function `func` (a member of the set an `f` line's function list or glob
/// names; see [`super::funcspec`]) instead of the one its function part
/// names. `None`: as [`parse_definition`] (a set's arguments then resolve
/// without BTF).
pub fn parse_definition_for<E: ProbeEnv + ?Sized>(
    line: &[u8],
    env: &E,
    def: &mut ProbeDef,
    func: Option<&[u8]>,
) -> Result<(), Failure> {
    def.reset();
    let line = cstr(line);
    let mut toks = tokens(line);
    let Some(argv0) = toks.next() else {
        return Err(Failure::silent(-ECANCELED));
    };
    match argv0.first() {
        Some(b'w') => parse_watch(line, argv0, toks.next(), env, def),
        _ => parse_ft_definition(line, argv0, toks.next(), env, def, func),
    }
}
