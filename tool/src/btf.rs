// SPDX-License-Identifier: GPL-2.0
//! Kernel BTF for the tool: vmlinux plus module split BTF, from the running
//! kernel (`/sys/kernel/btf/`) or from files (raw BTF, or the `.BTF` section
//! of an ELF `vmlinux`/`.ko`), indexed once by `btf_query`.
//!
//! A process loads its BTF once and keeps it until it exits, so the indexed
//! views are leaked to `'static` instead of being tied to a self-referential
//! owner: the parser's environment and every query then borrow freely.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use btf_query::{required_index_len, required_index_len_split, Btf, Kind, TypeId};
use object::{Object, ObjectSection};

/// Where the running kernel publishes its BTF.
pub const SYSFS_BTF: &str = "/sys/kernel/btf";

/// Why BTF could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: {err}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error (in the message, not a second `source` line).
        err: std::io::Error,
    },
    /// An ELF file without a `.BTF` section.
    #[error("{0}: ELF file without a .BTF section (build with CONFIG_DEBUG_INFO_BTF)")]
    NoBtfSection(PathBuf),
    /// An ELF file `object` could not parse.
    #[error("{path}: not a valid ELF file: {err}")]
    Elf {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        err: object::Error,
    },
    /// The BTF itself is malformed (or a module's BTF does not fit the base).
    #[error("{path}: invalid BTF ({err}): a truncated or damaged copy? Copy the whole /sys/kernel/btf/vmlinux")]
    Btf {
        /// The file.
        path: PathBuf,
        /// `btf_query`'s error.
        err: btf_query::Error,
    },
}

/// Reads `path` as raw BTF, or extracts the `.BTF` section of an ELF file.
/// Of an ELF file only the headers, the section names and `.BTF` are
/// read: a vmlinux with debug information is ten times its BTF.
pub fn read_btf_file(path: &Path) -> Result<Vec<u8>, LoadError> {
    let read_err = |err| LoadError::Read {
        path: path.to_owned(),
        err,
    };
    let elf_err = |err| LoadError::Elf {
        path: path.to_owned(),
        err,
    };
    let mut f = std::fs::File::open(path).map_err(read_err)?;
    let mut data = Vec::new();
    (&mut f).take(4).read_to_end(&mut data).map_err(read_err)?;
    if data != b"\x7fELF" {
        f.read_to_end(&mut data).map_err(read_err)?;
        return Ok(data);
    }
    let cache = object::ReadCache::new(f);
    let file = object::File::parse(&cache).map_err(elf_err)?;
    let section = file
        .section_by_name(".BTF")
        .ok_or_else(|| LoadError::NoBtfSection(path.to_owned()))?;
    let bytes = section.data().map_err(elf_err)?;
    Ok(bytes.to_vec())
}

fn index(
    blob: Vec<u8>,
    base: Option<&'static Btf<'static>>,
    path: &Path,
) -> Result<&'static Btf<'static>, LoadError> {
    let bad = |err| LoadError::Btf {
        path: path.to_owned(),
        err,
    };
    let blob: &'static [u8] = Box::leak(blob.into_boxed_slice());
    let need = match base {
        None => required_index_len(blob),
        Some(b) => required_index_len_split(blob, b),
    }
    .map_err(bad)?;
    let storage: &'static mut [u32] = Box::leak(vec![0u32; need].into_boxed_slice());
    let btf = match base {
        None => Btf::new(blob, storage),
        Some(b) => Btf::new_split(blob, b, storage),
    }
    .map_err(bad)?;
    Ok(Box::leak(Box::new(btf)))
}

/// The kernel module name for a BTF file name: `trace-events-sample.ko` and
/// `trace_events_sample.btf` both name `trace_events_sample`.
pub fn module_name_from_path(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = name
        .strip_suffix(".ko")
        .or_else(|| name.strip_suffix(".btf"))
        .unwrap_or(&name);
    name.replace('-', "_")
}

/// A module's split BTF, loaded on first use.
struct ModuleBtf {
    /// Kept for the life of the process (function records point at it).
    name: &'static str,
    path: PathBuf,
    btf: OnceLock<Option<&'static Btf<'static>>>,
}

/// Where a function (or another named type) is described: vmlinux or a module.
#[derive(Clone, Copy, Debug)]
pub struct FuncLoc {
    /// Index into [`KernelBtf::modules`], `None` for vmlinux.
    pub module: Option<usize>,
    /// The `FUNC` id in that BTF.
    pub id: TypeId,
}

/// vmlinux BTF and the split BTF of modules.
pub struct KernelBtf {
    vmlinux: &'static Btf<'static>,
    vmlinux_path: PathBuf,
    modules: Vec<ModuleBtf>,
}

impl KernelBtf {
    /// The running kernel's BTF: `/sys/kernel/btf/vmlinux`, and every other
    /// file there as a module.
    pub fn running() -> Result<KernelBtf, LoadError> {
        Self::running_at(Path::new(SYSFS_BTF))
    }

    /// Like [`KernelBtf::running`] for a copy of `/sys/kernel/btf` at `dir`.
    pub fn running_at(dir: &Path) -> Result<KernelBtf, LoadError> {
        let vmlinux = dir.join("vmlinux");
        let mut modules = Vec::new();
        if let Ok(rd) = std::fs::read_dir(dir) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if name != "vmlinux" {
                    modules.push(e.path());
                }
            }
        }
        modules.sort();
        Self::from_files(&vmlinux, &modules)
    }

    /// BTF from files: `vmlinux` (raw BTF or ELF), `modules` (raw split BTF
    /// or `.ko`; the module name is the file name without `.ko`/`.btf`).
    pub fn from_files(vmlinux: &Path, modules: &[PathBuf]) -> Result<KernelBtf, LoadError> {
        let blob = read_btf_file(vmlinux)?;
        let btf = index(blob, None, vmlinux)?;
        Ok(KernelBtf {
            vmlinux: btf,
            vmlinux_path: vmlinux.to_owned(),
            modules: modules
                .iter()
                .map(|p| ModuleBtf {
                    name: module_name_from_path(p).leak(),
                    path: p.clone(),
                    btf: OnceLock::new(),
                })
                .collect(),
        })
    }

    /// Loads every module's BTF now (reporting the first that fails), so
    /// that later lookups cannot fail silently.
    pub fn load_all_modules(&self) -> Result<(), LoadError> {
        for m in &self.modules {
            if m.btf.get().is_none() {
                let r = read_btf_file(&m.path).and_then(|b| index(b, Some(self.vmlinux), &m.path));
                match r {
                    Ok(b) => {
                        let _ = m.btf.set(Some(b));
                    }
                    Err(e) => {
                        let _ = m.btf.set(None);
                        return Err(e);
                    }
                }
            }
        }
        Ok(())
    }

    /// vmlinux BTF.
    pub fn vmlinux(&self) -> &'static Btf<'static> {
        self.vmlinux
    }

    /// The file vmlinux BTF came from.
    pub fn vmlinux_path(&self) -> &Path {
        &self.vmlinux_path
    }

    /// Number of modules known (loaded or not).
    pub fn nr_modules(&self) -> usize {
        self.modules.len()
    }

    /// Name of module `i`.
    pub fn module_name(&self, i: usize) -> &'static str {
        self.modules[i].name
    }

    /// The index of the module called `name`.
    pub fn module_index(&self, name: &str) -> Option<usize> {
        let name = name.replace('-', "_");
        self.modules.iter().position(|m| m.name == name)
    }

    /// Split BTF of module `i` (loaded on first use; `None` if it cannot be).
    pub fn module(&self, i: usize) -> Option<&'static Btf<'static>> {
        let m = self.modules.get(i)?;
        *m.btf.get_or_init(|| {
            read_btf_file(&m.path)
                .and_then(|b| index(b, Some(self.vmlinux), &m.path))
                .ok()
        })
    }

    /// The BTF of module `i`, or vmlinux for `None`.
    pub fn btf_of(&self, module: Option<usize>) -> Option<&'static Btf<'static>> {
        match module {
            None => Some(self.vmlinux),
            Some(i) => self.module(i),
        }
    }

    /// The first module whose own BTF has a `FUNC` called `name` (exact, or
    /// the name without compiler suffixes).
    pub fn module_with_func(&self, name: &[u8]) -> Option<usize> {
        (0..self.modules.len()).find(|&i| {
            self.module(i).is_some_and(|m| {
                m.find_func_for_symbol(name)
                    .is_some_and(|id| id.0 >= m.start_id().0)
            })
        })
    }

    /// Every named type of `kind` with where it is described: vmlinux
    /// first, then modules in name order (each BTF's own ids only; a name in
    /// several places keeps every place).
    pub fn named(&self, kind: Kind) -> Vec<(&'static [u8], FuncLoc)> {
        let mut out = Vec::new();
        let places = std::iter::once((Some(self.vmlinux), None))
            .chain((0..self.modules.len()).map(|i| (self.module(i), Some(i))));
        for (btf, module) in places {
            let Some(btf) = btf else {
                continue;
            };
            let start = if module.is_some() {
                btf.start_id().0
            } else {
                1
            };
            for id in (start..btf.end_id()).map(TypeId) {
                let Ok(t) = btf.type_by_id(id) else {
                    continue;
                };
                match btf.name(t.name_off()) {
                    Ok(name) if t.kind() == kind && !name.is_empty() => {
                        out.push((name, FuncLoc { module, id }));
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Every `FUNC` (see [`KernelBtf::named`]).
    pub fn funcs(&self) -> Vec<(&'static [u8], FuncLoc)> {
        self.named(Kind::Func)
    }

    /// Every `VAR` name, with the first place describing it.
    pub fn vars(&self) -> HashMap<&'static [u8], Option<usize>> {
        let mut out = HashMap::new();
        for (name, loc) in self.named(Kind::Var) {
            out.entry(name).or_insert(loc.module);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names() {
        assert_eq!(
            module_name_from_path(Path::new("/x/trace-events-sample.ko")),
            "trace_events_sample"
        );
        assert_eq!(
            module_name_from_path(Path::new("/sys/kernel/btf/ext4")),
            "ext4"
        );
        assert_eq!(module_name_from_path(Path::new("a/foo.btf")), "foo");
    }

    #[test]
    fn missing_file_is_a_clear_error() {
        let e = KernelBtf::from_files(Path::new("/nonexistent/vmlinux"), &[])
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("/nonexistent/vmlinux: "), "{e}");
    }

    #[test]
    fn garbage_is_invalid_btf() {
        let dir = std::env::temp_dir().join(format!("rfprobe-btf-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("junk");
        std::fs::write(&p, b"not btf at all").unwrap();
        let e = KernelBtf::from_files(&p, &[]).err().unwrap();
        assert!(e.to_string().contains("invalid BTF"), "{e}");
        std::fs::write(&p, b"\x7fELF garbage").unwrap();
        let e = KernelBtf::from_files(&p, &[]).err().unwrap();
        assert!(e.to_string().contains("not a valid ELF"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
