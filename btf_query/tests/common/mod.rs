// SPDX-License-Identifier: GPL-2.0
//! Shared test helpers: loading real blobs and encoding synthetic BTF.
#![allow(dead_code)]

use btf_query::{required_index_len, Btf};

/// Like `eprintln!`, but written straight to the stderr file descriptor so
/// that libtest's output capture does not hide it: SKIP lines and the
/// differential test's counts show up in every `cargo test` run.
#[macro_export]
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The host's vmlinux BTF.
pub const HOST_VMLINUX: &str = "/sys/kernel/btf/vmlinux";

/// Reads the host vmlinux BTF, or prints a SKIP line and returns `None`.
pub fn host_vmlinux(test: &str) -> Option<Vec<u8>> {
    match std::fs::read(HOST_VMLINUX) {
        Ok(b) => Some(b),
        Err(e) => {
            note!("SKIP: {test}: cannot read {HOST_VMLINUX}: {e}");
            None
        }
    }
}

/// Reads the blob named by env var `var`, or prints a SKIP line.
pub fn env_blob(var: &str, test: &str) -> Option<(String, Vec<u8>)> {
    let Ok(path) = std::env::var(var) else {
        note!("SKIP: {test} (set {var})");
        return None;
    };
    match std::fs::read(&path) {
        Ok(b) => Some((path, b)),
        Err(e) => panic!("{var}={path}: {e}"),
    }
}

/// Index storage for `blob`.
pub fn storage_for(blob: &[u8]) -> Vec<u32> {
    vec![0u32; required_index_len(blob).expect("required_index_len")]
}

/// Builds a base Btf, leaking storage for convenience in tests.
pub fn leak_btf(blob: Vec<u8>) -> Btf<'static> {
    let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
    let storage: &'static mut [u32] = Box::leak(storage_for(blob).into_boxed_slice());
    Btf::new(blob, storage).expect("Btf::new")
}

/// Builds a split Btf on a leaked base.
pub fn leak_split(blob: Vec<u8>, base: &'static Btf<'static>) -> Btf<'static> {
    let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
    let storage: &'static mut [u32] = Box::leak(storage_for(blob).into_boxed_slice());
    Btf::new_split(blob, base, storage).expect("Btf::new_split")
}

/// Writes the C name of a type into a String.
pub fn display(btf: &Btf<'_>, id: btf_query::TypeId) -> String {
    btf.display(id).to_string()
}

/// `BTF_KIND_*` numbers.
pub mod kind {
    pub const INT: u32 = 1;
    pub const PTR: u32 = 2;
    pub const ARRAY: u32 = 3;
    pub const STRUCT: u32 = 4;
    pub const UNION: u32 = 5;
    pub const ENUM: u32 = 6;
    pub const FWD: u32 = 7;
    pub const TYPEDEF: u32 = 8;
    pub const VOLATILE: u32 = 9;
    pub const CONST: u32 = 10;
    pub const RESTRICT: u32 = 11;
    pub const FUNC: u32 = 12;
    pub const FUNC_PROTO: u32 = 13;
    pub const VAR: u32 = 14;
    pub const DATASEC: u32 = 15;
    pub const FLOAT: u32 = 16;
    pub const DECL_TAG: u32 = 17;
    pub const TYPE_TAG: u32 = 18;
    pub const ENUM64: u32 = 19;
}

/// Encodes synthetic BTF blobs, base or split.
pub struct Builder {
    pub types: Vec<u8>,
    pub strings: Vec<u8>,
    next_id: u32,
    str_start: u32,
}

impl Default for Builder {
    fn default() -> Self {
        Self::new()
    }
}

pub fn info(kind: u32, vlen: u32, kflag: bool) -> u32 {
    (kind << 24) | vlen | (u32::from(kflag) << 31)
}

impl Builder {
    /// A base BTF (ids from 1, strings start with "").
    pub fn new() -> Self {
        Builder {
            types: Vec::new(),
            strings: vec![0],
            next_id: 1,
            str_start: 0,
        }
    }

    /// A split BTF on a base with `base_end_id` (one past its last id) and a
    /// string section of `base_str_len` bytes.
    pub fn split(base_end_id: u32, base_str_len: u32) -> Self {
        Builder {
            types: Vec::new(),
            strings: Vec::new(),
            next_id: base_end_id,
            str_start: base_str_len,
        }
    }

    /// Id the next type will get.
    pub fn next_id(&self) -> u32 {
        self.next_id
    }

    /// Adds a string (always appended; "" is offset 0 in a base).
    pub fn s(&mut self, s: &str) -> u32 {
        if s.is_empty() && self.str_start == 0 {
            return 0;
        }
        let off = self.str_start + self.strings.len() as u32;
        self.strings.extend_from_slice(s.as_bytes());
        self.strings.push(0);
        off
    }

    /// Appends a raw record and returns its id.
    pub fn raw(&mut self, name_off: u32, info: u32, size_or_type: u32, extra: &[u32]) -> u32 {
        for w in [name_off, info, size_or_type].iter().chain(extra) {
            self.types.extend_from_slice(&w.to_le_bytes());
        }
        self.next_id += 1;
        self.next_id - 1
    }

    pub fn int(&mut self, name: &str, size: u32, bits: u32, enc: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::INT, 0, false), size, &[(enc << 24) | bits])
    }
    pub fn int_off(&mut self, name: &str, size: u32, bits: u32, offset: u32, enc: u32) -> u32 {
        let n = self.s(name);
        self.raw(
            n,
            info(kind::INT, 0, false),
            size,
            &[(enc << 24) | (offset << 16) | bits],
        )
    }
    pub fn float(&mut self, name: &str, size: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::FLOAT, 0, false), size, &[])
    }
    pub fn ptr(&mut self, to: u32) -> u32 {
        self.raw(0, info(kind::PTR, 0, false), to, &[])
    }
    pub fn modifier(&mut self, k: u32, to: u32) -> u32 {
        self.raw(0, info(k, 0, false), to, &[])
    }
    pub fn typedef(&mut self, name: &str, to: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::TYPEDEF, 0, false), to, &[])
    }
    pub fn type_tag(&mut self, name: &str, to: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::TYPE_TAG, 0, false), to, &[])
    }
    pub fn array(&mut self, elem: u32, index: u32, n: u32) -> u32 {
        self.raw(0, info(kind::ARRAY, 0, false), 0, &[elem, index, n])
    }
    /// Members `(name, type, raw offset word)`.
    pub fn composite(
        &mut self,
        union: bool,
        name: &str,
        size: u32,
        kflag: bool,
        members: &[(&str, u32, u32)],
    ) -> u32 {
        let n = self.s(name);
        let mut extra = Vec::new();
        for &(mname, ty, off) in members {
            extra.extend([self.s(mname), ty, off]);
        }
        let k = if union { kind::UNION } else { kind::STRUCT };
        self.raw(n, info(k, members.len() as u32, kflag), size, &extra)
    }
    pub fn structure(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) -> u32 {
        self.composite(false, name, size, false, members)
    }
    pub fn union(&mut self, name: &str, size: u32, members: &[(&str, u32, u32)]) -> u32 {
        self.composite(true, name, size, false, members)
    }
    pub fn enumeration(
        &mut self,
        name: &str,
        size: u32,
        signed: bool,
        vals: &[(&str, i32)],
    ) -> u32 {
        let n = self.s(name);
        let mut extra = Vec::new();
        for &(vname, v) in vals {
            extra.extend([self.s(vname), v as u32]);
        }
        self.raw(n, info(kind::ENUM, vals.len() as u32, signed), size, &extra)
    }
    pub fn enum64(&mut self, name: &str, size: u32, signed: bool, vals: &[(&str, u64)]) -> u32 {
        let n = self.s(name);
        let mut extra = Vec::new();
        for &(vname, v) in vals {
            extra.extend([self.s(vname), v as u32, (v >> 32) as u32]);
        }
        self.raw(
            n,
            info(kind::ENUM64, vals.len() as u32, signed),
            size,
            &extra,
        )
    }
    pub fn fwd(&mut self, name: &str, union: bool) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::FWD, 0, union), 0, &[])
    }
    pub fn func_proto(&mut self, ret: u32, params: &[(&str, u32)]) -> u32 {
        let mut extra = Vec::new();
        for &(pname, ty) in params {
            extra.extend([self.s(pname), ty]);
        }
        self.raw(
            0,
            info(kind::FUNC_PROTO, params.len() as u32, false),
            ret,
            &extra,
        )
    }
    pub fn func(&mut self, name: &str, proto: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::FUNC, 1, false), proto, &[])
    }
    pub fn var(&mut self, name: &str, ty: u32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::VAR, 0, false), ty, &[1])
    }
    pub fn datasec(&mut self, name: &str, size: u32, vars: &[(u32, u32, u32)]) -> u32 {
        let n = self.s(name);
        let mut extra = Vec::new();
        for &(v, off, sz) in vars {
            extra.extend([v, off, sz]);
        }
        self.raw(
            n,
            info(kind::DATASEC, vars.len() as u32, false),
            size,
            &extra,
        )
    }
    pub fn decl_tag(&mut self, name: &str, ty: u32, component: i32) -> u32 {
        let n = self.s(name);
        self.raw(n, info(kind::DECL_TAG, 0, false), ty, &[component as u32])
    }

    /// The blob: header, types, strings.
    pub fn finish(&self) -> Vec<u8> {
        let mut hdr = Header::new(self.types.len() as u32, self.strings.len() as u32);
        hdr.encode(&self.types, &self.strings)
    }

    /// The blob in Linux 7.3's form, as pahole >= 1.31 writes it: a 32-byte
    /// header, types, the layout section `layout`, strings.
    pub fn finish_with_layout(&self, layout: &[u8]) -> Vec<u8> {
        self.header_with_layout(layout.len() as u32)
            .encode_sections(&[&self.types, layout, &self.strings])
    }

    /// Header fields for custom layouts.
    pub fn header(&self) -> Header {
        Header::new(self.types.len() as u32, self.strings.len() as u32)
    }

    /// Header fields of [`Builder::finish_with_layout`].
    pub fn header_with_layout(&self, layout_len: u32) -> Header {
        let (tl, sl) = (self.types.len() as u32, self.strings.len() as u32);
        Header {
            hdr_len: 32,
            layout_off: tl,
            layout_len,
            str_off: tl + layout_len,
            ..Header::new(tl, sl)
        }
    }
}

/// `(info_sz, elem_sz)` of kinds 0 (`BTF_KIND_UNKN`) to 19
/// (`BTF_KIND_ENUM64`): the layout section's entries for the kinds of
/// Linux 7.3 (libbpf's `layouts[]` table).
pub const KNOWN_LAYOUT: [(u8, u8); 20] = [
    (0, 0),  // UNKN
    (4, 0),  // INT
    (0, 0),  // PTR
    (12, 0), // ARRAY
    (0, 12), // STRUCT
    (0, 12), // UNION
    (0, 8),  // ENUM
    (0, 0),  // FWD
    (0, 0),  // TYPEDEF
    (0, 0),  // VOLATILE
    (0, 0),  // CONST
    (0, 0),  // RESTRICT
    (0, 0),  // FUNC
    (0, 8),  // FUNC_PROTO
    (4, 0),  // VAR
    (0, 12), // DATASEC
    (0, 0),  // FLOAT
    (4, 0),  // DECL_TAG
    (0, 0),  // TYPE_TAG
    (0, 12), // ENUM64
];

/// A layout section: `struct btf_layout { u8 info_sz; u8 elem_sz; u16
/// flags; }` for kinds 0, 1, ... (flags 0).
pub fn layout_section(entries: &[(u8, u8)]) -> Vec<u8> {
    entries
        .iter()
        .flat_map(|&(info_sz, elem_sz)| [info_sz, elem_sz, 0, 0])
        .collect()
}

/// The layout section of the kinds of Linux 7.3 followed by `more` (kinds
/// 20, 21, ...).
pub fn layout_with(more: &[(u8, u8)]) -> Vec<u8> {
    let mut entries = KNOWN_LAYOUT.to_vec();
    entries.extend_from_slice(more);
    layout_section(&entries)
}

/// `struct btf_header` fields, for building malformed headers.
#[derive(Clone, Copy, Debug)]
pub struct Header {
    pub magic: u16,
    pub version: u8,
    pub flags: u8,
    pub hdr_len: u32,
    pub type_off: u32,
    pub type_len: u32,
    pub str_off: u32,
    pub str_len: u32,
    /// Written only if `hdr_len` >= 32 (Linux 7.3's header).
    pub layout_off: u32,
    pub layout_len: u32,
}

impl Header {
    pub fn new(type_len: u32, str_len: u32) -> Self {
        Header {
            magic: 0xeb9f,
            version: 1,
            flags: 0,
            hdr_len: 24,
            type_off: 0,
            type_len,
            str_off: type_len,
            str_len,
            layout_off: 0,
            layout_len: 0,
        }
    }

    /// Header bytes (padded with zeros up to `hdr_len` if longer than 24)
    /// followed by the two sections at their offsets (types first).
    pub fn encode(&mut self, types: &[u8], strings: &[u8]) -> Vec<u8> {
        self.encode_sections(&[types, strings])
    }

    /// Header bytes (the layout fields too if `hdr_len` >= 32, padded with
    /// zeros up to `hdr_len`) followed by `parts`, concatenated.
    pub fn encode_sections(&mut self, parts: &[&[u8]]) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&self.magic.to_le_bytes());
        v.push(self.version);
        v.push(self.flags);
        for w in [
            self.hdr_len,
            self.type_off,
            self.type_len,
            self.str_off,
            self.str_len,
        ] {
            v.extend_from_slice(&w.to_le_bytes());
        }
        if self.hdr_len >= 32 {
            for w in [self.layout_off, self.layout_len] {
                v.extend_from_slice(&w.to_le_bytes());
            }
        }
        while v.len() < self.hdr_len as usize {
            v.push(0);
        }
        for part in parts {
            v.extend_from_slice(part);
        }
        v
    }
}

/// Checks that hold for any x86_64 Linux ≥ 6.x vmlinux BTF (the host's and
/// the 6.12 test kernel's). Offsets are checked for consistency, not
/// against constants: the differential test compares them with bpftool.
pub fn check_kernel_basics(btf: &Btf<'_>) {
    use btf_query::{Kind, TypeId};
    let s = |id| display(btf, id);

    // struct file: f_pos (loff_t → long long), f_path (struct path) → dentry.
    let file = btf.find_struct_or_union(b"file").expect("struct file");
    assert_eq!(btf.kind(file).unwrap(), Kind::Struct);
    assert_eq!(s(file), "struct file");
    let file_size = btf.size_of(file).unwrap();
    let f_pos = btf.find_member(file, b"f_pos").unwrap().expect("f_pos");
    assert_eq!(s(f_pos.ty), "loff_t");
    assert_eq!(f_pos.bitfield_size, 0);
    assert_eq!(f_pos.bit_offset % 64, 0);
    assert!(f_pos.bit_offset / 8 + 8 <= file_size);
    let facts = btf.facts(f_pos.ty).unwrap();
    assert_eq!(facts.kind, Kind::Int);
    assert_eq!(facts.size, Some(8));
    let int = facts.int.unwrap();
    assert!(int.signed && int.bits == 64 && !int.char && !int.bool);
    // GCC and clang name base types differently in DWARF.
    let raw = btf.type_name(facts.id).unwrap();
    assert!(raw == b"long long int" || raw == b"long long", "{raw:?}");
    assert_eq!(s(facts.id), "long long");

    let f_path = btf.find_member(file, b"f_path").unwrap().expect("f_path");
    let path = btf.skip_modifiers(f_path.ty).unwrap();
    assert_eq!(s(path), "struct path");
    let dentry_m = btf
        .find_member(path, b"dentry")
        .unwrap()
        .expect("path.dentry");
    assert_eq!(s(dentry_m.ty), "struct dentry *");
    assert_eq!(dentry_m.bit_offset, 64);
    let dentry = btf.pointee(dentry_m.ty).unwrap().expect("pointer");
    assert_eq!(
        btf.find_struct_or_union(b"dentry"),
        Some(btf.skip_modifiers(dentry).unwrap())
    );

    // struct dentry: d_name (directly, or in an anonymous union since 6.14),
    // struct qstr: name directly, len and hash through union { struct {...}; u64 hash_len; }.
    let d_name = btf.find_member(dentry, b"d_name").unwrap().expect("d_name");
    let qstr = btf.skip_modifiers(d_name.ty).unwrap();
    assert_eq!(s(qstr), "struct qstr");
    let name = btf.find_member(qstr, b"name").unwrap().expect("qstr.name");
    assert_eq!(name.parent, qstr);
    assert_eq!(name.bit_offset, 64);
    assert_eq!(s(name.ty), "const unsigned char *");
    assert!(btf.is_char_ptr(name.ty).unwrap());
    let hash = btf
        .find_member(qstr, b"hash")
        .unwrap()
        .expect("qstr.hash (anon)");
    let len = btf
        .find_member(qstr, b"len")
        .unwrap()
        .expect("qstr.len (anon)");
    assert_ne!(len.parent, qstr, "len is reached through anonymous members");
    assert_eq!(btf.type_name(len.parent).unwrap(), b"");
    assert_eq!(
        (hash.bit_offset, len.bit_offset),
        (0, 32),
        "little-endian HASH_LEN_DECLARE"
    );
    assert_eq!(
        btf.find_member(qstr, b"hash_len")
            .unwrap()
            .unwrap()
            .bit_offset,
        0
    );
    assert_eq!(btf.find_member(qstr, b"nonexistent").unwrap(), None);
    assert_eq!(btf.find_member(qstr, b"").unwrap(), None);

    // vfs_read(struct file *file, char *buf, size_t count, loff_t *pos) → ssize_t.
    let vfs_read = btf.find_func(b"vfs_read").expect("vfs_read");
    assert_eq!(btf.kind(vfs_read).unwrap(), Kind::Func);
    let proto = btf.func_proto(vfs_read).unwrap();
    assert_eq!(proto.func(), Some(vfs_read));
    let params: Vec<_> = proto.params().map(Result::unwrap).collect();
    let names: Vec<&[u8]> = params.iter().map(|p| p.name).collect();
    assert_eq!(names, [&b"file"[..], b"buf", b"count", b"pos"]);
    let types: Vec<String> = params.iter().map(|p| s(p.ty)).collect();
    assert_eq!(types, ["struct file *", "char *", "size_t", "loff_t *"]);
    assert_eq!(proto.nr_params(), 4);
    assert!(!proto.is_variadic());
    assert_eq!(proto.find_param(b"count").unwrap().map(|(i, _)| i), Some(2));
    assert_eq!(proto.find_param(b"nope").unwrap(), None);
    assert!(btf.is_char_ptr(params[1].ty).unwrap());
    assert!(!btf.is_char_array(params[1].ty).unwrap());
    assert!(!btf.is_char_ptr(params[0].ty).unwrap());
    assert_eq!(btf.pointee(params[0].ty).unwrap(), Some(file));
    let pf = btf.facts(params[0].ty).unwrap();
    assert_eq!((pf.kind, pf.size, pf.int), (Kind::Ptr, Some(8), None));
    assert_eq!(s(proto.ret()), "ssize_t");
    let ret = btf.facts(proto.ret()).unwrap();
    assert_eq!(ret.kind, Kind::Int);
    assert_eq!(ret.size, Some(8));
    let ri = ret.int.unwrap();
    assert!(ri.signed && ri.bits == 64 && ri.offset == 0);
    assert_eq!(s(ret.id), "long");
    let ssize_t = btf.find_typedef(b"ssize_t").unwrap();
    assert_eq!(proto.ret(), ssize_t);
    let long = btf
        .find_base_type(b"long int")
        .or_else(|| btf.find_base_type(b"long"));
    assert_eq!(Some(btf.skip_modifiers(ssize_t).unwrap()), long);
    assert_eq!(
        s(proto.id()),
        "ssize_t (struct file *, char *, size_t, loff_t *)"
    );
    assert_eq!(s(vfs_read), s(proto.id()));

    // kfree(const void *) returns void.
    let kfree = btf
        .func_proto(btf.find_func(b"kfree").expect("kfree"))
        .unwrap();
    assert_eq!(kfree.ret(), TypeId::VOID);
    assert_eq!(btf.kind(kfree.ret()).unwrap(), Kind::Void);
    assert_eq!(s(kfree.ret()), "void");
    let p = kfree.param(0).unwrap().unwrap();
    assert_eq!(s(p.ty), "const void *");
    assert!(!btf.is_char_ptr(p.ty).unwrap());
    assert_eq!(btf.facts(kfree.ret()).unwrap().size, None);
    assert!(matches!(
        btf.size_of(TypeId::VOID),
        Err(btf_query::Error::NoSize { .. })
    ));

    // kstrdup(const char *s, gfp_t gfp) → char *.
    let kstrdup = btf.func_proto(btf.find_func(b"kstrdup").unwrap()).unwrap();
    let p0 = kstrdup.param(0).unwrap().unwrap();
    assert_eq!(s(p0.ty), "const char *");
    assert!(btf.is_char_ptr(p0.ty).unwrap());
    assert_eq!(s(kstrdup.ret()), "char *");

    // task_struct: comm is char[16], kind_flag bitfields.
    let task = btf.find_struct_or_union(b"task_struct").unwrap();
    assert!(
        btf.type_by_id(task).unwrap().kflag(),
        "task_struct uses kind_flag"
    );
    let comm = btf.find_member(task, b"comm").unwrap().unwrap();
    assert_eq!(s(comm.ty), "char[16]");
    assert!(btf.is_char_array(comm.ty).unwrap());
    assert!(!btf.is_char_ptr(comm.ty).unwrap());
    assert_eq!(btf.size_of(comm.ty).unwrap(), 16);
    let arr = btf.array_info(comm.ty).unwrap().unwrap();
    assert_eq!(arr.nelems, 16);
    let bf = btf
        .find_member(task, b"sched_reset_on_fork")
        .unwrap()
        .expect("bitfield");
    assert_eq!(bf.bitfield_size, 1);
    assert_eq!(s(bf.ty), "unsigned int");
    let raw = btf
        .members(task)
        .unwrap()
        .map(Result::unwrap)
        .find(|m| m.name == b"sched_reset_on_fork")
        .unwrap();
    assert_eq!(raw, bf);

    // file_operations.read is a function pointer.
    let fops = btf.find_struct_or_union(b"file_operations").unwrap();
    let read = btf.find_member(fops, b"read").unwrap().unwrap();
    assert_eq!(
        s(read.ty),
        "ssize_t (*)(struct file *, char *, size_t, loff_t *)"
    );
    assert!(btf.pointee(read.ty).unwrap().is_some());

    // Enums.
    let states = btf.find_enum(b"system_states").expect("enum system_states");
    assert_eq!(s(states), "enum system_states");
    assert_eq!(
        btf.enum_value_name(states, 0).unwrap(),
        Some(&b"SYSTEM_BOOTING"[..])
    );
    assert_eq!(btf.enum_value_name(states, 12345).unwrap(), None);
    let ef = btf.facts(states).unwrap();
    assert_eq!(
        (ef.kind, ef.size, ef.enum_signed),
        (Kind::Enum, Some(4), Some(false))
    );
    assert!(matches!(
        btf.enum_values(file),
        Err(btf_query::Error::WrongKind { .. })
    ));

    // Names of base types as C spells them.
    for (gcc_name, c) in [
        ("long unsigned int", "unsigned long"),
        ("unsigned int", "unsigned int"),
        ("char", "char"),
        ("_Bool", "_Bool"),
        ("short int", "short"),
        ("long long unsigned int", "unsigned long long"),
    ] {
        // GCC's DWARF name, or clang's (which is already the C spelling).
        let id = btf
            .find_base_type(gcc_name.as_bytes())
            .or_else(|| btf.find_base_type(c.as_bytes()))
            .expect(gcc_name);
        assert_eq!(s(id), c);
    }
    let u8_ = btf.find_typedef(b"u8").unwrap();
    assert!(btf.int_info(u8_).unwrap().unwrap().is_char_like());
    let bool_ = btf.find_base_type(b"_Bool").unwrap();
    assert!(btf.int_info(bool_).unwrap().unwrap().bool);

    // Symbol names with compiler suffixes.
    for sym in [
        "vfs_read.isra.0",
        "vfs_read.constprop.0",
        "vfs_read.part.0",
        "vfs_read.cold",
        "vfs_read.llvm.1234567",
        "vfs_read.isra.0.cold",
        "vfs_read.constprop.0.isra.0",
    ] {
        assert_eq!(
            btf.find_func_for_symbol(sym.as_bytes()),
            Some(vfs_read),
            "{sym}"
        );
        assert_eq!(btf.find_func(sym.as_bytes()), None, "{sym}");
    }
    assert_eq!(btf.find_func_for_symbol(b"vfs_read"), Some(vfs_read));
    assert_eq!(btf.find_func_for_symbol(b"vfs_read.foo"), None);
    assert_eq!(
        btf.find_func_for_symbol(b"no_such_function_xyz.isra.0"),
        None
    );

    // Lookups by kind; struct vs func namespaces are separate.
    assert_eq!(btf.find_by_name_kind(b"file", Kind::Struct), Some(file));
    assert_eq!(btf.find_by_name_kind(b"file", Kind::Union), None);
    assert_eq!(btf.find_by_name_kind(b"vfs_read", Kind::Struct), None);
    assert_eq!(btf.find_func(b"file"), None);
    assert_eq!(btf.find_func(b""), None);
    assert_eq!(btf.find_func(b"vfs_rea"), None);
    assert_eq!(btf.find_func(b"vfs_read\0"), None);
}

impl Builder {
    /// Adds `int` and returns self, for one-liners.
    pub fn tap_int(mut self) -> Self {
        self.int("int", 4, 32, 1);
        self
    }
}

/// C source of the module-like object whose split BTF [`pahole_split`]
/// encodes on top of the host vmlinux BTF.
pub const SPLIT_DEMO_C: &str = r#"
struct file;
struct rfprobe_demo {
	int a;
	unsigned int flag:3;
	unsigned int other:5;
	struct file *file;
	union {
		long x;
		struct {
			short y;
			short z;
		};
	};
	char name[16];
	const char *label;
};
enum rfprobe_demo_state { RFPROBE_IDLE, RFPROBE_BUSY = 7 };
typedef struct rfprobe_demo rfprobe_demo_t;
int rfprobe_demo_fn(rfprobe_demo_t *d, const char *msg, unsigned long n, enum rfprobe_demo_state s)
{
	return d->a + msg[0] + (int)n + (int)s;
}
void rfprobe_demo_void(struct file *f)
{
	(void)f;
}
"#;

/// Builds a real split BTF on top of the host's vmlinux BTF: compiles
/// [`SPLIT_DEMO_C`] with `gcc -g` and encodes it with
/// `pahole --btf_encode_detached --btf_base=/sys/kernel/btf/vmlinux`.
/// Returns the blob's path and bytes, or prints a SKIP line.
pub fn pahole_split(test: &str) -> Option<(String, Vec<u8>)> {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("rfprobe-btf-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let c = dir.join("demo.c");
    let o = dir.join("demo.o");
    let btf = dir.join("demo.btf");
    std::fs::write(&c, SPLIT_DEMO_C).ok()?;
    let ok = |cmd: &mut Command| cmd.status().map(|s| s.success()).unwrap_or(false);
    if !ok(Command::new("gcc")
        .args(["-g", "-O1", "-funsigned-char", "-c"])
        .arg(&c)
        .arg("-o")
        .arg(&o))
    {
        note!("SKIP: {test}: gcc not available");
        return None;
    }
    if !ok(Command::new("pahole")
        .arg(format!("--btf_encode_detached={}", btf.display()))
        .arg(format!("--btf_base={HOST_VMLINUX}"))
        .arg(&o))
    {
        note!("SKIP: {test}: pahole (dwarves) not available or failed");
        return None;
    }
    let bytes = std::fs::read(&btf).ok()?;
    // Keep only the blob (bpftool reads it by path); drop the rest.
    let keep = std::env::temp_dir().join(format!("rfprobe-btf-{}-{test}.btf", std::process::id()));
    std::fs::write(&keep, &bytes).ok()?;
    let _ = std::fs::remove_dir_all(&dir);
    Some((keep.display().to_string(), bytes))
}
