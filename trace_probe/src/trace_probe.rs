// SPDX-License-Identifier: GPL-2.0
//! Probe definition parsing, BTF resolution and fetch programs (no_std, no alloc).

#[allow(unused_imports)]
use super::btf_query;

pub mod desc;
pub mod dump;
pub use self::desc::*;

pub mod fetch;
pub mod funcres;
pub mod funcspec;
pub mod interp;
pub mod render;

// Definition parser, BTF resolution, errors, canonical form, layout.
pub mod btf_adapter;
pub mod bytes;
pub mod callthrough;
pub mod cmdline;
pub mod core_layout;
pub mod define;
pub mod errno;
pub mod errors;
pub mod facts;
pub mod kind;
pub mod kstr;
pub mod layout;
pub mod multi;
pub mod parse;
pub mod plan;
pub mod probe;
pub mod profile;
pub mod resolve;
pub mod symbolic;
pub mod wparse;
pub mod wtrigger;
pub use self::cmdline::{classify, split_commands, tokens, Command, RemoveSpec};
pub use self::define::{parse_definition, parse_definition_for};
pub use self::errors::{
    write_error_log_entry, write_error_log_entry_for, ErrCode, Failure, LogEntry,
};
pub use self::facts::KernelFacts;
pub use self::probe::{DefHead, ProbeArg, ProbeDef, ProbeKind, StoredDef, MAX_TRACE_ARGS};
pub use self::resolve::{BtfInfo, DentryOffsets, ProbeEnv, TracepointLookup};

#[cfg(test)]
mod tests {
    #[test]
    fn limits() {
        assert_eq!(super::MAX_TRACE_ARGS, 128);
        assert_eq!(super::FetchType::X64.size(), 8);
    }

    #[test]
    fn fetch_type_table() {
        use super::{FetchType, BASIC_TYPES};
        assert_eq!(BASIC_TYPES.len(), 19);
        for t in BASIC_TYPES {
            let f = t.facts();
            // Rows that share a name are one type at two widths.
            let named = FetchType::from_name(f.name.as_bytes()).map(|n| n.facts().name);
            assert_eq!(named, Some(f.name));
            assert_eq!(f.string, f.fmttype == "__data_loc char[]");
            assert!(matches!(f.size, 1 | 2 | 4 | 8));
        }
        let bf = FetchType::Bitfield {
            width: 3,
            offset: 2,
            container: 16,
        };
        assert_eq!(bf.facts(), FetchType::U16.facts());
        assert_eq!(FetchType::from_name(b"b3@2/16"), None);
    }

    #[test]
    fn enum_rows_print_by_name_at_c_widths() {
        use super::{FetchType, BASIC_TYPES};
        let mut named = BASIC_TYPES.into_iter().filter(|t| t.prints_by_name());
        assert_eq!(named.next(), Some(FetchType::Enum));
        assert_eq!(named.next(), Some(FetchType::Enum64));
        assert_eq!(named.next(), None);
        assert_eq!(FetchType::from_name(b"enum"), Some(FetchType::Enum));
        // The field stays C's integer: the format file cannot tell them apart.
        for (c, e) in [
            (FetchType::S32, FetchType::Enum),
            (FetchType::S64, FetchType::Enum64),
        ] {
            assert_eq!(c.by_name(), Some(e));
            let (cf, ef) = (c.facts(), e.facts());
            assert_eq!(
                (cf.size, cf.signed, cf.fmttype, cf.fmt),
                (ef.size, ef.signed, ef.fmttype, ef.fmt)
            );
        }
        assert_eq!(FetchType::U32.by_name(), None);
        assert_eq!(FetchType::X64.by_name(), None);
    }
}
