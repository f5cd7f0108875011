//! Probe definition parsing, BTF resolution and fetch programs (no_std, no alloc).

#[allow(unused_imports)]
use super::btf_query;

pub mod desc;
pub use self::desc::*;

pub mod fetch;
pub mod interp;
pub mod render;

/// Placeholder until the parser lands.
pub const MAX_TRACE_ARGS: usize = 128;

#[cfg(test)]
mod tests {
    #[test]
    fn limits() {
        assert_eq!(super::MAX_TRACE_ARGS, 128);
        assert_eq!(super::FetchType::X64.size(), 8);
    }
}
