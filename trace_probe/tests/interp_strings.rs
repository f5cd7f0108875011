// SPDX-License-Identifier: GPL-2.0
//! String / dynamic-data tests: `__data_loc` encoding, exact record size,
//! 4095/4096/over-4096 strings, user vs kernel strings, faults mid-string,
//! string arrays, `$comm`, immediate strings, truncation, read-once.

mod interp_mock;

use interp_mock::*;
use trace_probe::fetch::{MAX_STRING_SIZE, TASK_COMM_LEN};
use trace_probe::render::ProbeKind::Entry;
use trace_probe::{Base, FetchType as T};

const K: u64 = 0xffff_8880_0100_0000;
const U: u64 = 0x0000_7ffe_f36c_0000;

fn s(b: Base, hops: &[(i64, bool)]) -> trace_probe::ArgDesc {
    desc(b, hops, T::String)
}

#[test]
fn three_hops_and_a_string_with_exact_size_and_data_loc() {
    // file->f_path.dentry->d_name.name:string
    let mut m = Mock::new();
    let file = K + 0x1000;
    let dentry = K + 0x2000;
    let name = K + 0x3000;
    m.args = vec![file, 1234];
    m.map_u64(file + 0x48, dentry); // f_path.dentry
    m.map_u64(dentry + 0x28, name); // d_name.name
    m.map_str(name, b"enable");
    let p = Probe::new(
        Entry,
        &[
            a(
                "name",
                s(Base::Arg(0), &[(0x48, false), (0x28, false), (0, false)]),
            ),
            a("count", desc(Base::Arg(1), &[], T::U64)),
            a(
                "again",
                s(Base::Arg(0), &[(0x48, false), (0x28, false), (0, false)]),
            ),
        ],
        &m,
    );
    assert!(p.prog.is_dynamic());
    assert_eq!(p.prog.static_size(), None);
    assert_eq!(p.prog.fixed_size(), 16 + 4 + 8 + 4);
    assert_eq!(p.prog.max_record_size(), 32 + 2 * MAX_STRING_SIZE);
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(
        r.len,
        32 + 7 + 7,
        "record size is fixed + both strings incl. NUL"
    );
    assert_eq!(u32_at(&rec, 16), (7 << 16) | 32);
    assert_eq!(u32_at(&rec, 28), (7 << 16) | 39);
    assert_eq!(str_at(&rec, 16), (7, 32, b"enable".to_vec()));
    assert_eq!(
        p.args_text(&rec, &m),
        " name=\"enable\" count=1234 again=\"enable\""
    );
}

fn long_string_probe(
    m: &mut Mock,
    n: usize,
    addr: u64,
) -> (Vec<u8>, trace_probe::interp::RunResult) {
    let mut body = vec![b'x'; n];
    body.push(0);
    m.map(addr, &body);
    m.args = vec![addr];
    let p = Probe::new(Entry, &[a("s", s(Base::Arg(0), &[(0, false)]))], m);
    p.run(m, (0, 0))
}

#[test]
fn string_of_4095_chars_fits_exactly() {
    let mut m = Mock::new();
    let (rec, r) = long_string_probe(&mut m, 4095, K + 0x10);
    let (len, off, body) = str_at(&rec, 16);
    assert_eq!((len, off), (4096, 20));
    assert_eq!(body, vec![b'x'; 4095]);
    assert_eq!(r.len, 20 + 4096);
    assert!(!r.truncated);
}

#[test]
fn string_of_4096_chars_is_truncated_to_4095_plus_nul() {
    let mut m = Mock::new();
    let (rec, r) = long_string_probe(&mut m, 4096, K + 0x10);
    let (len, _, body) = str_at(&rec, 16);
    assert_eq!(len, 4096);
    assert_eq!(body, vec![b'x'; 4095]);
    assert_eq!(r.len, 20 + 4096);
    assert!(
        !r.truncated,
        "MAX_STRING_SIZE truncation is normal, not buffer truncation"
    );
}

#[test]
fn string_over_4096_chars_is_truncated() {
    let mut m = Mock::new();
    let (rec, r) = long_string_probe(&mut m, 10_000, K + 0x7ff);
    let (len, _, body) = str_at(&rec, 16);
    assert_eq!(len, 4096);
    assert_eq!(body, vec![b'x'; 4095]);
    assert_eq!(r.len, 20 + 4096);
}

#[test]
fn unterminated_string_whose_4096th_byte_faults_is_a_fault() {
    // strncpy_from_kernel_nofault reads all 4096 bytes before terminating.
    let mut m = Mock::new();
    m.map(K, &[b'y'; 4095]);
    m.args = vec![K];
    let p = Probe::new(Entry, &[a("s", s(Base::Arg(0), &[(0, false)]))], &m);
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(str_at(&rec, 16).0, 0);
    assert_eq!(r.len, 20);
    assert_eq!(p.args_text(&rec, &m), " s=(fault)");
}

#[test]
fn string_fault_mid_way_and_nul_before_fault() {
    let mut m = Mock::new();
    // 100 readable bytes, no NUL, then unmapped.
    m.map(K + 0x1000, &[b'a'; 100]);
    // "ok\0" then an unmapped byte right after the NUL in the same chunk.
    m.map(K + 0x2000, b"ok\0zz");
    m.poison.insert(K + 0x2003);
    // Poisoned byte mid-string.
    m.map(K + 0x3000, b"abcdefgh\0");
    m.poison.insert(K + 0x3004);
    m.args = vec![K + 0x1000, K + 0x2000, K + 0x3000];
    let p = Probe::new(
        Entry,
        &[
            a("a", s(Base::Arg(0), &[(0, false)])),
            a("b", s(Base::Arg(1), &[(0, false)])),
            a("c", s(Base::Arg(2), &[(0, false)])),
            a("d", s(Base::Arg(1), &[(0, false)])),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 2);
    assert_eq!(
        p.args_text(&rec, &m),
        " a=(fault) b=\"ok\" c=(fault) d=\"ok\""
    );
    // Faulted strings take no dynamic space; data_loc offset = current position.
    let fixed = 16 + 16;
    assert_eq!(u32_at(&rec, 16), fixed as u32);
    assert_eq!(u32_at(&rec, 20), (3 << 16) | fixed as u32);
    assert_eq!(u32_at(&rec, 24), (fixed + 3) as u32);
    assert_eq!(u32_at(&rec, 28), (3 << 16) | (fixed + 3) as u32);
    assert_eq!(r.len, fixed + 6);
}

#[test]
fn string_crossing_a_page_boundary() {
    let mut m = Mock::new();
    let addr = K + 0x1000 - 5;
    m.map_str(addr, b"crosses-the-page");
    m.args = vec![addr];
    let p = Probe::new(Entry, &[a("s", s(Base::Arg(0), &[(0, false)]))], &m);
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " s=\"crosses-the-page\"");
}

#[test]
fn fault_in_chain_before_string_and_later_args_unaffected() {
    let mut m = Mock::new();
    m.args = vec![K, 5];
    m.map_u64(K, K + 0x100); // hop 1
    m.map_str(K + 0x100, b"fine");
    let p = Probe::new(
        Entry,
        &[
            a("first_hop", s(Base::Arg(0), &[(0x40, false), (0, false)])),
            a("final", s(Base::Arg(0), &[(0, false), (0x4000, false)])),
            a("ok", s(Base::Arg(0), &[(0, false), (0, false)])),
            a("n", desc(Base::Arg(1), &[], T::U32)),
        ],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 2);
    assert_eq!(
        p.args_text(&rec, &m),
        " first_hop=(fault) final=(fault) ok=\"fine\" n=5"
    );
    assert_eq!(r.len, p.prog.fixed_size() + 5);
}

#[test]
fn user_strings_by_address_and_forced() {
    let mut m = Mock::new();
    m.map_str_page(U + 0x10, b"user-text");
    m.map_str_page(K + 0x10, b"kernel-text");
    m.args = vec![U + 0x10, K + 0x10];
    let p = Probe::new(
        Entry,
        &[
            a("plain_user", s(Base::Arg(0), &[(0, false)])),
            a("plain_kernel", s(Base::Arg(1), &[(0, false)])),
            a("ustr_user", desc(Base::Arg(0), &[(0, false)], T::UString)),
            a("ustr_kernel", desc(Base::Arg(1), &[(0, false)], T::UString)),
            a("uhop_user", s(Base::Arg(0), &[(0, true)])),
            a("uhop_kernel", s(Base::Arg(1), &[(0, true)])),
        ],
        &m,
    );
    m.reset_counters();
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 2);
    assert_eq!(
        p.args_text(&rec, &m),
        " plain_user=\"user-text\" plain_kernel=\"kernel-text\" ustr_user=\"user-text\" \
         ustr_kernel=(fault) uhop_user=\"user-text\" uhop_kernel=(fault)"
    );
    // kernel reads: only plain_kernel; all the rest went to user copies.
    assert_eq!(m.kernel_reads.get(), 1);
}

#[test]
fn strings_are_read_once() {
    let mut m = Mock::new();
    m.map_str_page(K + 0x10, b"short");
    m.args = vec![K + 0x10];
    let p = Probe::new(Entry, &[a("s", s(Base::Arg(0), &[(0, false)]))], &m);
    m.reset_counters();
    let (_, r) = p.run(&m, (0, 0));
    assert_eq!(r.len, 20 + 6);
    assert_eq!(
        m.kernel_reads.get(),
        1,
        "one chunk read, no separate strlen pass"
    );
    // A long string: every byte read at most once (chunks never overlap).
    let long = vec![b'q'; 3000];
    m.map_str_page(K + 0x10000, &long);
    m.args = vec![K + 0x10000];
    m.reset_counters();
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(str_at(&rec, 16).0, 3001);
    assert!(
        m.bytes_read.get() <= 3001 + 1024,
        "bytes read {}",
        m.bytes_read.get()
    );
    assert!(m.kernel_reads.get() <= 8);
}

#[test]
fn string_arrays_are_arrays_of_char_pointers() {
    // +0($arg1):string[3]: pointers at arg1+0, +8, +16
    let mut m = Mock::new();
    m.args = vec![K];
    m.map_u64(K, K + 0x100);
    m.map_u64(K + 8, 0); // NULL pointer: reading it faults
    m.map_u64(K + 16, U + 0x200); // user pointer: read with copy_from_user
    m.map_str(K + 0x100, b"zero");
    m.map_str(U + 0x200, b"two");
    let p = Probe::new(
        Entry,
        &[
            a("argv", arr(s(Base::Arg(0), &[(0, false)]), 3)),
            a("bad", arr(s(Base::Arg(0), &[(0x900, false)]), 2)),
            a("one", arr(s(Base::Arg(0), &[(0, false)]), 1)),
            a("same", s(Base::Arg(0), &[(0, false), (0, false)])),
        ],
        &m,
    );
    assert_eq!(p.prog.fixed_size(), 16 + 12 + 8 + 4 + 4);
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(r.faults, 1 + 2);
    assert_eq!(
        p.args_text(&rec, &m),
        " argv={\"zero\",(fault),\"two\"} bad={(fault),(fault)} one={\"zero\"} same=\"zero\""
    );
    assert_eq!(r.len, p.prog.fixed_size() + 5 + 4 + 5 + 5);
}

#[test]
fn comm_and_immediate_strings() {
    let mut m = Mock::new();
    m.set_comm(b"sh");
    let body = "\\\"hello world\"";
    let p = Probe::new(
        Entry,
        &[
            a("comm", desc(Base::Comm, &[], T::String)),
            a_body(
                "imm",
                desc(Base::ImmStr { start: 2, len: 11 }, &[], T::String),
                body,
            ),
        ],
        &m,
    );
    assert_eq!(p.prog.max_dynamic_size(), TASK_COMM_LEN + 12);
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " comm=\"sh\" imm=\"hello world\"");
    assert_eq!(r.len, 24 + 3 + 12);
    // A full 16-byte comm without NUL is cut at 15 + NUL.
    m.comm = *b"0123456789abcdef";
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(str_at(&rec, 16).2, b"0123456789abcde".to_vec());
}

#[test]
fn small_buffer_truncates_strings_and_reports_it() {
    let mut m = Mock::new();
    m.map_str(K, b"0123456789");
    m.args = vec![K, 9];
    let p = Probe::new(
        Entry,
        &[
            a("a", s(Base::Arg(0), &[(0, false)])),
            a("b", s(Base::Arg(0), &[(0, false)])),
            a("n", desc(Base::Arg(1), &[], T::U8)),
        ],
        &m,
    );
    let fixed = p.prog.fixed_size();
    // Room for the first string and 4 bytes of the second.
    let (rec, r) = p.run_cap(&m, (0, 0), fixed + 11 + 4);
    assert!(r.truncated);
    assert_eq!(r.len, fixed + 15);
    assert_eq!(p.args_text(&rec, &m), " a=\"0123456789\" b=\"012\" n=9");
    // No room at all: both strings become faults, the fixed field is intact.
    let (rec, r) = p.run_cap(&m, (0, 0), fixed);
    assert!(r.truncated);
    assert_eq!(r.len, fixed);
    assert_eq!(p.args_text(&rec, &m), " a=(fault) b=(fault) n=9");
}

#[test]
fn data_loc_offsets_are_from_record_start_in_exit_records() {
    let mut m = Mock::new();
    m.map_str(K, b"x");
    m.retval = K;
    let p = Probe::new(
        trace_probe::render::ProbeKind::Exit,
        &[a("r", s(Base::Retval, &[(0, false)]))],
        &m,
    );
    let (rec, r) = p.run(&m, (0, 0));
    assert_eq!(u32_at(&rec, 24), (2 << 16) | 28);
    assert_eq!(r.len, 30);
}

#[test]
fn immediate_address_string() {
    // `\IMM:string` reads the string at IMM (parser emits hop 0).
    let mut m = Mock::new();
    m.map_str(K + 0x40, b"at-imm");
    let p = Probe::new(Entry, &[a("s", s(Base::Imm(K + 0x40), &[(0, false)]))], &m);
    let (rec, _) = p.run(&m, (0, 0));
    assert_eq!(p.args_text(&rec, &m), " s=\"at-imm\"");
}

#[test]
fn scratch_then_exact_reserve_then_copy() {
    // The kernel pattern for dynamic programs: run into scratch, reserve
    // exactly `len`, copy everything after the header.
    let mut m = Mock::new();
    m.map_str(K, b"scratch");
    m.args = vec![K, 3];
    let p = Probe::new(
        Entry,
        &[
            a("s", s(Base::Arg(0), &[(0, false)])),
            a("n", desc(Base::Arg(1), &[], T::U16)),
        ],
        &m,
    );
    let mut scratch = vec![0u8; p.prog.max_record_size()];
    let r = trace_probe::interp::run(&p.prog, &p.insns, &m, &p.bodies[..], &mut scratch).unwrap();
    assert_eq!(r.len, 22 + 8);
    let mut reserved = vec![0x11u8; r.len]; // trace_entry + ip already filled
    assert!(trace_probe::interp::copy_record(
        &p.prog,
        &scratch,
        r.len,
        &mut reserved
    ));
    assert!(reserved[..16].iter().all(|&b| b == 0x11));
    assert_eq!(&reserved[16..], &scratch[16..r.len]);
    assert_eq!(p.args_text(&reserved, &m), " s=\"scratch\" n=3");
    let mut short = vec![0u8; r.len - 1];
    assert!(!trace_probe::interp::copy_record(
        &p.prog, &scratch, r.len, &mut short
    ));
}
