// SPDX-License-Identifier: GPL-2.0
//! `struct trace_array`'s layout from the 6.12 test kernel's BTF, against
//! what `pahole` (and `offsetof()` in the module, built with trace.h) say.

mod defs_common;

use trace_probe::core_layout::{LayoutError, RingBufferLayout, TraceArrayLayout};

#[test]
fn trace_array_layout_from_test_kernel_btf() {
    let Some(btf) = defs_common::test_kernel_btf("trace_array_layout_from_test_kernel_btf") else {
        return;
    };
    let l = TraceArrayLayout::from_btf(btf).expect("layout");
    // 6.12.117, the fast/debug configs (no CONFIG_TRACER_MAX_TRACE):
    // pahole -C trace_array / array_buffer, include/linux/.../trace.h.
    assert_eq!(l.list, 0);
    assert_eq!(l.buffer, 24 + 8);
    assert_eq!(l.max_buffer, None);
    assert_eq!(l.buffer_disabled, 124);
    assert_eq!(l.clear_trace, 140);
    assert_eq!(l.trace_flags, 160);
    assert_eq!(l.trace_flags_size, 4);
    assert_eq!(l.stack_flags, (1 << 29) | (1 << 11));
}

/// The ring buffer's private structs (kernel/trace/ring_buffer.c), whose
/// state tells why a reservation was refused.
#[test]
fn ring_buffer_layout_from_test_kernel_btf() {
    let Some(btf) = defs_common::test_kernel_btf("ring_buffer_layout_from_test_kernel_btf") else {
        return;
    };
    let l = RingBufferLayout::from_btf(btf).expect("layout");
    assert_eq!(
        l,
        // 6.12's debug kernel (make check's), pahole -C trace_buffer /
        // ring_buffer_per_cpu: lockdep's mutexes and spinlocks before them.
        RingBufferLayout {
            record_disabled: 4,
            buffers: 176,
            cpu_record_disabled: 4,
            current_context: 136,
            nest: 208,
        }
    );
}

/// The same from the 7.3 fast kernel's BTF (pahole -C trace_array /
/// trace_buffer / ring_buffer_per_cpu on 7.3.4; bpftool's
/// TRACE_ITER_*_BIT): a 64-bit trace_flags at another offset, the option
/// bits of enum trace_iterator_bits, the ring buffer's per-CPU array 8
/// bytes earlier.
#[test]
fn layouts_from_73_test_kernel_btf() {
    let Some(btf) = defs_common::test_kernel_btf_73("layouts_from_73_test_kernel_btf") else {
        return;
    };
    let l = TraceArrayLayout::from_btf(btf).expect("layout");
    assert_eq!(l.list, 0);
    assert_eq!(l.buffer, 24 + 8);
    assert_eq!(l.max_buffer, None);
    assert_eq!(l.buffer_disabled, 124);
    assert_eq!(l.clear_trace, 160);
    assert_eq!(l.trace_flags, 192);
    assert_eq!(l.trace_flags_size, 8);
    assert_eq!(l.stack_flags, (1 << 31) | (1 << 11));
    let r = RingBufferLayout::from_btf(btf).expect("ring buffer layout");
    assert_eq!(
        r,
        RingBufferLayout {
            record_disabled: 4,
            buffers: 56,
            cpu_record_disabled: 4,
            current_context: 56,
            nest: 128,
        }
    );
}

#[test]
fn no_trace_array_is_an_error() {
    // A BTF with one type, `int`: no tracing core.
    let mut blob = Vec::new();
    blob.extend_from_slice(&0xeb9fu16.to_le_bytes());
    blob.extend_from_slice(&[1, 0]); // version, flags
    for v in [24u32, 0, 16, 16, 5] {
        // hdr_len, type_off, type_len, str_off, str_len
        blob.extend_from_slice(&v.to_le_bytes());
    }
    // name "int", BTF_KIND_INT, size 4, signed 32 bits.
    for v in [1u32, 1 << 24, 4, 0x0100_0020] {
        blob.extend_from_slice(&v.to_le_bytes());
    }
    blob.extend_from_slice(b"\0int\0");
    let need = btf_query::required_index_len(&blob).unwrap();
    let mut storage = vec![0u32; need];
    let btf = btf_query::Btf::new(&blob, &mut storage).unwrap();
    assert_eq!(
        TraceArrayLayout::from_btf(&btf),
        Err(LayoutError::NoType("struct trace_array"))
    );
}
