//! Vector inputs for reassignment costs, read from numpy `.npy` files (float32 or float64, C
//! or Fortran order), `.safetensors` or torch `.pt` files (see [`super::tensors`]): per-item
//! latents or embeddings (N×d) and residual codebooks (L×V×d).

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use ndarray::{Array2, Array3, ArrayBase, ArrayView2, Data, Dimension};
use ndarray_npy::{ReadNpyError, ReadNpyExt};
use rayon::prelude::*;

use super::tensors::{self, Dtype, TensorFormat};
use crate::error::{Error, Place, Result};
use crate::load::SidIndex;
use crate::sid;

/// Per-item vectors (row i belongs to the item whose [`crate::load::ItemIds::vector_row`] is
/// i). float32 files stay float32 in memory (half the footprint); rows convert on demand.
#[derive(Debug, Clone)]
pub struct Latents {
    path: PathBuf,
    rows: FloatRows,
}

/// All rows of [`Latents`] at once, in the element type of the file (no copy), for work that
/// reads many rows, such as the projection.
#[derive(Debug, Clone, Copy)]
pub enum LatentsView<'a> {
    /// A float32 file.
    F32(ArrayView2<'a, f32>),
    /// A float64 file.
    F64(ArrayView2<'a, f64>),
}

#[derive(Debug, Clone)]
enum FloatRows {
    F32(Array2<f32>),
    F64(Array2<f64>),
    /// The values of a large `.npy` file, mapped instead of read (see [`MappedRows`]).
    Mapped(MappedRows),
}

/// The values of a large little-endian, C-order float `.npy` file, mapped read-only when
/// [`crate::io::input::maps`] says so: reading 1M × 32 latents into fresh
/// memory (copying them from the page cache and faulting the copy in) took longer on one
/// core than `zcr` spends on most of its stages.
#[derive(Debug, Clone)]
struct MappedRows {
    map: Arc<memmap2::Mmap>,
    /// The byte offset of the first value, a multiple of the value size.
    start: usize,
    shape: (usize, usize),
    kind: FloatKind,
}

impl MappedRows {
    /// Maps `path`'s values when `header` describes a file that can be read in place
    /// (native byte order, C order, aligned, nothing after the values); `None` otherwise, and
    /// the file is read instead (which also reports any trailing bytes).
    fn of(path: &Path, header: &NpyHeader, kind: FloatKind) -> Result<Option<Self>> {
        let size = kind.size() as u64;
        let [rows, cols] = header.shape[..] else {
            return Ok(None);
        };
        let values = (rows as u64).checked_mul(cols as u64);
        let fits = cfg!(target_endian = "little")
            && header.descr.starts_with('<')
            && !header.fortran_order
            && crate::io::input::maps(header.file_len)
            && header.data_start.is_multiple_of(size)
            && values.and_then(|n| n.checked_mul(size))
                == Some(header.file_len - header.data_start);
        if !fits {
            return Ok(None);
        }
        let (file, len) = crate::io::input::open_regular(path)?;
        let map = crate::io::input::map_file(&file).map_err(|e| Error::io(path, e))?;
        if len != header.file_len || map.len() as u64 != len {
            return Ok(None);
        }
        Ok(Some(MappedRows {
            map: Arc::new(map),
            start: header.data_start as usize,
            shape: (rows, cols),
            kind,
        }))
    }

    fn view(&self) -> LatentsView<'_> {
        let n = self.shape.0 * self.shape.1;
        let bytes = &self.map[self.start..];
        let shaped = "the shape was checked against the file's length";
        match self.kind {
            FloatKind::F32 => LatentsView::F32(
                ArrayView2::from_shape(self.shape, &mapped_values::<f32>(bytes)[..n])
                    .expect(shaped),
            ),
            FloatKind::F64 => LatentsView::F64(
                ArrayView2::from_shape(self.shape, &mapped_values::<f64>(bytes)[..n])
                    .expect(shaped),
            ),
        }
    }
}

/// Mapped bytes as values of a float type. The map starts on a page, the values at a multiple
/// of their size, and they run to the end of the file (checked in `MappedRows::of`), so the
/// cast neither fails nor cuts a value.
fn mapped_values<T: bytemuck::Pod>(bytes: &[u8]) -> &[T] {
    bytemuck::try_cast_slice(bytes).expect("mapped values are aligned and whole")
}

/// Latents read but not yet checked to be finite: [`UncheckedLatents::check`] gives the
/// [`Latents`].
#[derive(Debug)]
pub struct UncheckedLatents(Latents);

impl UncheckedLatents {
    /// The latents once every value is known to be finite; else an error naming the first
    /// row and column that is not.
    pub fn check(self) -> Result<Latents> {
        let latents = self.0;
        match latents.view() {
            LatentsView::F32(a) => check_finite_rows(&latents.path, &a)?,
            LatentsView::F64(a) => check_finite_rows(&latents.path, &a)?,
        }
        Ok(latents)
    }
}

impl Latents {
    /// Reads an N×d float `.npy`, `.safetensors` or `.pt` file (`FILE#NAME` picks a tensor)
    /// and checks every value is finite. Float16 and bfloat16 are held as float32.
    pub fn load(path: &Path) -> Result<Self> {
        Self::read(path)?.check()
    }

    /// [`Latents::load`] without the check of every value, which [`UncheckedLatents::check`]
    /// does later: a large mapped file's check is a pass over all of it, which a caller can
    /// run where both cores are free (`zcr` parses the index beside the read).
    pub fn read(path: &Path) -> Result<UncheckedLatents> {
        let rows = match tensors::format_of(path)? {
            Some(TensorFormat::Safetensors | TensorFormat::Torch) => {
                let t = tensors::read_one(path, 2, "latents or embeddings, N × d")?;
                let (file, _) = tensors::split_name(path);
                let shape = (t.shape()[0], t.shape()[1]);
                let what = "latents or embeddings";
                match t.dtype() {
                    Dtype::F64 => FloatRows::F64(
                        Array2::from_shape_vec(shape, t.to_f64(&file, what)?)
                            .expect("the shape is the tensor's"),
                    ),
                    _ => FloatRows::F32(
                        Array2::from_shape_vec(shape, t.to_f32(&file, what)?)
                            .expect("the shape is the tensor's"),
                    ),
                }
            }
            _ => {
                let header = NpyHeader::read(path)?;
                let kind = header.float_kind(path, 2)?;
                match (MappedRows::of(path, &header, kind)?, kind) {
                    (Some(mapped), _) => FloatRows::Mapped(mapped),
                    (None, FloatKind::F32) => FloatRows::F32(standard(read_array::<f32, _>(path)?)),
                    (None, FloatKind::F64) => FloatRows::F64(standard(read_array::<f64, _>(path)?)),
                }
            }
        };
        let latents = Latents {
            path: path.to_path_buf(),
            rows,
        };
        if latents.n_rows() == 0 || latents.dim() == 0 {
            return Err(Error::data(
                path,
                Place::File,
                format!(
                    "the array has shape ({}, {}); latents need at least one row and one column",
                    latents.n_rows(),
                    latents.dim()
                ),
            ));
        }
        Ok(UncheckedLatents(latents))
    }

    /// Latents held in memory (tests, synthetic data); `path` names them in messages.
    pub fn from_f64(path: &Path, rows: Array2<f64>) -> Result<Self> {
        check_finite_rows(path, &rows)?;
        Ok(Latents {
            path: path.to_path_buf(),
            rows: FloatRows::F64(standard(rows)),
        })
    }

    /// Float32 latents held in memory, kept as float32.
    pub fn from_f32(path: &Path, rows: Array2<f32>) -> Result<Self> {
        check_finite_rows(path, &rows)?;
        Ok(Latents {
            path: path.to_path_buf(),
            rows: FloatRows::F32(standard(rows)),
        })
    }

    /// The file the vectors came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of rows N.
    pub fn n_rows(&self) -> usize {
        match self.view() {
            LatentsView::F32(a) => a.nrows(),
            LatentsView::F64(a) => a.nrows(),
        }
    }

    /// Vector dimension d.
    pub fn dim(&self) -> usize {
        match self.view() {
            LatentsView::F32(a) => a.ncols(),
            LatentsView::F64(a) => a.ncols(),
        }
    }

    /// The element type of the file, `float32` or `float64`.
    pub fn dtype(&self) -> &'static str {
        match self.view() {
            LatentsView::F32(_) => "float32",
            LatentsView::F64(_) => "float64",
        }
    }

    /// The whole matrix, without copying.
    pub fn view(&self) -> LatentsView<'_> {
        match &self.rows {
            FloatRows::F32(a) => LatentsView::F32(a.view()),
            FloatRows::F64(a) => LatentsView::F64(a.view()),
            FloatRows::Mapped(m) => m.view(),
        }
    }

    /// Copies row `row` into `out` (length d) as float64.
    pub fn row_into(&self, row: usize, out: &mut [f64]) {
        match self.view() {
            LatentsView::F32(a) => {
                let src = a.row(row);
                let src = src.as_slice().expect("rows are kept in standard layout");
                for (o, &v) in out.iter_mut().zip(src) {
                    *o = f64::from(v);
                }
            }
            LatentsView::F64(a) => {
                let src = a.row(row);
                out.copy_from_slice(src.as_slice().expect("rows are kept in standard layout"));
            }
        }
    }

    /// Checks the rows cover every item of `index` (row = [`crate::load::ItemIds::vector_row`]);
    /// the message names both files and both numbers.
    pub fn check_covers(&self, index: &SidIndex) -> Result<()> {
        self.rows_of(index).map(|_| ())
    }

    /// The row of every item position of `index`, checked as [`Latents::check_covers`] does.
    pub fn rows_of(&self, index: &SidIndex) -> Result<Vec<u32>> {
        let ids = index.ids();
        let rows: Vec<u32> = (0..index.n_items())
            .into_par_iter()
            .map(|p| u32::try_from(ids.vector_row(p)).unwrap_or(u32::MAX))
            .collect();
        let needed = rows.par_iter().enumerate().max_by_key(|&(_, &row)| row);
        if let Some((position, &row)) = needed
            && row as usize >= self.n_rows()
        {
            let how = if ids.rows_are_ids() {
                "row i is item id i"
            } else {
                "rows follow the index's item order"
            };
            let row = ids.vector_row(position);
            return Err(Error::Invalid(format!(
                "{} has {} rows, but {} needs row {row} for item \"{}\" ({how})",
                self.path.display(),
                self.n_rows(),
                index.path().display(),
                index.id(position)
            )));
        }
        Ok(rows)
    }
}

/// Residual-quantisation codebooks, `L × V × d`: `codeword(level, code)` is the vector that
/// level's code adds to the reconstruction. Held as float64 (they are small).
#[derive(Debug, Clone)]
pub struct Codebooks {
    path: PathBuf,
    n_levels: usize,
    codebook_size: usize,
    dim: usize,
    values: Vec<f64>,
    dtype: &'static str,
}

impl Codebooks {
    /// Reads an L×V×d float `.npy`, `.safetensors` or `.pt` file (`FILE#NAME` picks a
    /// tensor) and checks every value is finite.
    pub fn load(path: &Path) -> Result<Self> {
        let (array, dtype) = match tensors::format_of(path)? {
            Some(TensorFormat::Safetensors | TensorFormat::Torch) => {
                let t = tensors::read_one(path, 3, "codebooks, L × V × d")?;
                let (file, _) = tensors::split_name(path);
                let shape = (t.shape()[0], t.shape()[1], t.shape()[2]);
                let values = t.to_f64(&file, "codebooks")?;
                let array =
                    Array3::from_shape_vec(shape, values).expect("the shape is the tensor's");
                let dtype = match t.dtype() {
                    Dtype::F64 => "float64",
                    _ => "float32",
                };
                return Ok(Codebooks {
                    dtype,
                    ..Self::from_array(&file, array)?
                });
            }
            _ => {
                let header = NpyHeader::read(path)?;
                match header.float_kind(path, 3)? {
                    FloatKind::F32 => (read_array::<f32, _>(path)?.mapv(f64::from), "float32"),
                    FloatKind::F64 => (read_array::<f64, _>(path)?, "float64"),
                }
            }
        };
        let mut codebooks = Self::from_array(path, array)?;
        codebooks.dtype = dtype;
        Ok(codebooks)
    }

    /// Codebooks held in memory (tests, synthetic data); `path` names them in messages.
    pub fn from_array(path: &Path, array: Array3<f64>) -> Result<Self> {
        let (n_levels, codebook_size, dim) = array.dim();
        if n_levels == 0 || codebook_size == 0 || dim == 0 {
            return Err(Error::data(
                path,
                Place::File,
                format!(
                    "the array has shape ({n_levels}, {codebook_size}, {dim}); codebooks need L × V × d with none of them 0"
                ),
            ));
        }
        if n_levels > sid::MAX_LEVELS || codebook_size > sid::MAX_CODEBOOK_SIZE {
            return Err(Error::data(
                path,
                Place::File,
                format!(
                    "the array has shape ({n_levels}, {codebook_size}, {dim}); at most {} levels of {} codes are supported",
                    sid::MAX_LEVELS,
                    sid::MAX_CODEBOOK_SIZE
                ),
            ));
        }
        let values: Vec<f64> = standard(array).into_raw_vec_and_offset().0;
        if let Some(bad) = values.iter().position(|v| !v.is_finite()) {
            let per_level = codebook_size * dim;
            return Err(Error::data(
                path,
                Place::Field(format!(
                    "level {}, code {}, component {}",
                    sid::level_letter(bad / per_level),
                    bad % per_level / dim,
                    bad % dim
                )),
                format!("{} is not a finite number", values[bad]),
            ));
        }
        Ok(Codebooks {
            path: path.to_path_buf(),
            n_levels,
            codebook_size,
            dim,
            values,
            dtype: "float64",
        })
    }

    /// The file the codebooks came from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Number of levels L.
    pub fn n_levels(&self) -> usize {
        self.n_levels
    }

    /// Codes per level V.
    pub fn codebook_size(&self) -> usize {
        self.codebook_size
    }

    /// Vector dimension d.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The element type of the file, `float32` or `float64`.
    pub fn dtype(&self) -> &'static str {
        self.dtype
    }

    /// The codeword of `code` at `level` (length d).
    pub fn codeword(&self, level: usize, code: usize) -> &[f64] {
        let start = (level * self.codebook_size + code) * self.dim;
        &self.values[start..start + self.dim]
    }

    /// Checks the codebooks fit `index` and `latents`: same L, every code below V, same d.
    /// Messages name both files and both numbers.
    pub fn check_fit(&self, index: &SidIndex, latents: &Latents) -> Result<()> {
        let (cb, ix) = (self.path.display(), index.path().display());
        if self.n_levels != index.n_levels() {
            return Err(Error::Invalid(format!(
                "{cb} has {} levels, but {ix} has {} codes per item",
                self.n_levels,
                index.n_levels()
            )));
        }
        let max_code = index.all_codes().iter().copied().max().unwrap_or(0) as usize;
        if max_code >= self.codebook_size {
            let at = index
                .all_codes()
                .iter()
                .position(|&c| c as usize == max_code)
                .unwrap_or(0);
            return Err(Error::Invalid(format!(
                "{cb} has {} codes per level, but {ix} uses code {max_code} (item \"{}\")",
                self.codebook_size,
                index.id(at / index.n_levels())
            )));
        }
        if index.codebook_size_given() && index.codebook_size() != self.codebook_size {
            return Err(Error::Invalid(format!(
                "--codebook-size is {}, but {cb} has {} codes per level",
                index.codebook_size(),
                self.codebook_size
            )));
        }
        if self.dim != latents.dim() {
            return Err(Error::Invalid(format!(
                "{cb} has {}-dimensional codewords, but {} has {}-dimensional rows",
                self.dim,
                latents.path().display(),
                latents.dim()
            )));
        }
        Ok(())
    }
}

/// Codes of an N×L integer `.npy`, `.safetensors` or `.pt` file (row i = item i): the values
/// and the shape.
pub fn read_code_matrix(path: &Path) -> Result<(Vec<i64>, usize, usize)> {
    if tensors::sniff(path) != Some(TensorFormat::Npy) {
        return tensors::read_code_matrix(path);
    }
    let header = NpyHeader::read(path)?;
    let integer = header.descr.trim_start_matches(['<', '>', '=', '|']);
    if header.shape.len() != 2 || !matches!(integer.as_bytes().first(), Some(b'i' | b'u')) {
        return Err(Error::data(
            path,
            Place::File,
            format!(
                "expected a 2-D integer array of SID codes (N items × L levels), found {} with shape {}",
                header.descr,
                header.shape_text()
            ),
        ));
    }
    let (rows, cols) = (header.shape[0], header.shape[1]);
    let values: Vec<i64> = match integer {
        "i8" => read_array::<i64, ndarray::Ix2>(path)?
            .iter()
            .copied()
            .collect(),
        "i4" => read_array::<i32, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "i2" => read_array::<i16, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "i1" => read_array::<i8, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "u1" => read_array::<u8, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "u2" => read_array::<u16, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "u4" => read_array::<u32, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| v.into())
            .collect(),
        "u8" => read_array::<u64, ndarray::Ix2>(path)?
            .iter()
            .map(|&v| i64::try_from(v).unwrap_or(i64::MAX))
            .collect(),
        _ => {
            return Err(Error::data(
                path,
                Place::File,
                format!("cannot read SID codes of type {}", header.descr),
            ));
        }
    };
    Ok((values, rows, cols))
}

/// The numeric element types sidlens reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FloatKind {
    F32,
    F64,
}

impl FloatKind {
    /// Bytes per value.
    fn size(self) -> usize {
        match self {
            FloatKind::F32 => 4,
            FloatKind::F64 => 8,
        }
    }
}

/// The parts of an `.npy` header that decide how to read it, kept for clear messages.
#[derive(Debug, Clone, PartialEq)]
struct NpyHeader {
    descr: String,
    fortran_order: bool,
    shape: Vec<usize>,
    /// Where the values start in the file, and the file's length (set by [`NpyHeader::read`]).
    data_start: u64,
    file_len: u64,
}

impl NpyHeader {
    fn read(path: &Path) -> Result<Self> {
        let (mut file, file_len) = crate::io::input::open_regular(path)?;
        let mut prefix = [0u8; 12];
        let got = read_up_to(&mut file, &mut prefix).map_err(|e| Error::io(path, e))?;
        let not_npy = || {
            Error::data(
                path,
                Place::File,
                "is not a numpy .npy file (save arrays with numpy.save)",
            )
        };
        if got < 10 || &prefix[..6] != b"\x93NUMPY" {
            return Err(not_npy());
        }
        let (header_len, start) = match prefix[6] {
            1 => (u16::from_le_bytes([prefix[8], prefix[9]]) as usize, 10),
            2 | 3 if got == 12 => (
                u32::from_le_bytes([prefix[8], prefix[9], prefix[10], prefix[11]]) as usize,
                12,
            ),
            _ => return Err(not_npy()),
        };
        if header_len > 1 << 20 {
            return Err(not_npy());
        }
        let mut text = vec![0u8; header_len];
        file.seek(SeekFrom::Start(start as u64))
            .and_then(|_| file.read_exact(&mut text))
            .map_err(|_| Error::data(path, Place::File, "the .npy header is truncated"))?;
        let text = String::from_utf8_lossy(&text);
        let mut header = Self::parse(&text).map_err(|why| {
            Error::data(
                path,
                Place::File,
                format!("cannot read the .npy header: {why}"),
            )
        })?;
        header.data_start = (start + header_len) as u64;
        header.file_len = file_len;
        // A header may claim any shape: compare it with the file's length before anything
        // is allocated for it.
        let values = header
            .shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64));
        let item_size = header.item_size();
        let data_len = file_len.saturating_sub((start + header_len) as u64);
        match (values, item_size) {
            (None, _) => {
                return Err(Error::data(
                    path,
                    Place::File,
                    "the array shape is impossibly large",
                ));
            }
            (Some(n), Some(size)) if n.checked_mul(size).is_none_or(|need| need > data_len) => {
                return Err(Error::data(
                    path,
                    Place::File,
                    format!(
                        "the header announces shape {} of {} ({} bytes of values), but the file holds only {data_len} bytes after it (truncated, or a wrong header)",
                        header.shape_text(),
                        header.descr,
                        n.saturating_mul(size)
                    ),
                ));
            }
            _ => {}
        }
        Ok(header)
    }

    /// Bytes per value of a plain numeric `descr` such as `<f4`, when it names one.
    fn item_size(&self) -> Option<u64> {
        let digits = self
            .descr
            .trim_start_matches(['<', '>', '=', '|'])
            .get(1..)?;
        digits.parse().ok().filter(|&n| n > 0)
    }

    /// Parses the header dictionary, e.g. `{'descr': '<f4', 'fortran_order': False, 'shape': (4344, 384), }`;
    /// the error says in a few words what is wrong.
    fn parse(text: &str) -> std::result::Result<Self, String> {
        let value_after = |key: &str| -> std::result::Result<&str, String> {
            let missing = || format!("it has no '{key}' entry");
            let at = text.find(&format!("'{key}'")).ok_or_else(missing)? + key.len() + 2;
            Ok(text[at..]
                .trim_start()
                .strip_prefix(':')
                .ok_or_else(missing)?
                .trim_start())
        };
        let descr = value_after("descr")?;
        let unreadable = |what: &str| format!("its {what} cannot be read");
        let quote = descr.chars().next().ok_or_else(|| unreadable("'descr'"))?;
        let descr = if quote == '\'' || quote == '"' {
            let rest = &descr[1..];
            rest[..rest.find(quote).ok_or_else(|| unreadable("'descr'"))?].to_string()
        } else {
            let end = descr
                .find(", 'fortran_order'")
                .or_else(|| descr.find(", 'shape'"))
                .ok_or_else(|| unreadable("'descr'"))?;
            descr[..end].to_string()
        };
        let order = value_after("fortran_order")?;
        let fortran_order = order.starts_with("True");
        if !fortran_order && !order.starts_with("False") {
            let word: String = order
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .take(20)
                .collect();
            return Err(format!("'fortran_order' is {word:?}, not True or False"));
        }
        let shape_text = value_after("shape")?
            .strip_prefix('(')
            .ok_or_else(|| unreadable("'shape'"))?;
        let shape_text =
            &shape_text[..shape_text.find(')').ok_or_else(|| unreadable("'shape'"))?];
        let shape = shape_text
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| s.trim_end_matches('L').parse().ok())
            .collect::<Option<Vec<usize>>>()
            .ok_or_else(|| format!("its shape ({shape_text}) is not a list of whole numbers"))?;
        Ok(NpyHeader {
            descr,
            fortran_order,
            shape,
            data_start: 0,
            file_len: 0,
        })
    }

    /// The float type of an array that must have `ndim` dimensions, or a message saying
    /// what the file holds instead.
    fn float_kind(&self, path: &Path, ndim: usize) -> Result<FloatKind, Error> {
        let kind = match self.descr.as_str() {
            "<f4" | ">f4" => Some(FloatKind::F32),
            "<f8" | ">f8" => Some(FloatKind::F64),
            _ => None,
        };
        match kind {
            Some(k) if self.shape.len() == ndim => Ok(k),
            _ => Err(Error::data(
                path,
                Place::File,
                format!(
                    "expected a {ndim}-D float32 or float64 array, found {} with shape {}",
                    self.descr,
                    self.shape_text()
                ),
            )),
        }
    }

    /// The shape as Python prints it: `(3,)`, `(4344, 384)`.
    fn shape_text(&self) -> String {
        match self.shape.as_slice() {
            [one] => format!("({one},)"),
            dims => format!(
                "({})",
                dims.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

fn read_up_to(file: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match file.read(&mut buf[filled..])? {
            0 => break,
            n => filled += n,
        }
    }
    Ok(filled)
}

/// Reads the whole array with ndarray-npy, turning its errors into messages a user understands.
fn read_array<A, D>(path: &Path) -> Result<ndarray::Array<A, D>>
where
    A: ndarray_npy::ReadableElement,
    D: Dimension,
{
    let (file, _) = crate::io::input::open_regular(path)?;
    ndarray::Array::<A, D>::read_npy(BufReader::with_capacity(1 << 20, file)).map_err(|e| {
        let message = match e {
            ReadNpyError::Io(io) => return Error::io(path, io),
            ReadNpyError::MissingData => {
                "the file ends before all the values its header announces (truncated?)".to_string()
            }
            ReadNpyError::ExtraBytes(n) => {
                format!("{n} unexpected bytes after the values the header announces")
            }
            ReadNpyError::LengthOverflow => "the array shape is impossibly large".to_string(),
            other => {
                let text = other.to_string();
                let first = text.lines().next().unwrap_or_default();
                format!("cannot read the .npy file ({first})")
            }
        };
        Error::data(path, Place::File, message)
    })
}

/// The array in C (row-major) order, copying a Fortran-order one once.
fn standard<A: Clone, D: Dimension>(array: ndarray::Array<A, D>) -> ndarray::Array<A, D> {
    if array.is_standard_layout() {
        array
    } else {
        array.as_standard_layout().into_owned()
    }
}

/// Rejects NaN and infinite values, naming the first bad row and column. Blocks of rows are
/// checked on every core without stopping early (so the loop vectorises); only a file with a
/// bad value is searched again for its first one.
fn check_finite_rows<S, A>(path: &Path, rows: &ArrayBase<S, ndarray::Ix2>) -> Result<()>
where
    S: Data<Elem = A>,
    A: Copy + Into<f64> + Sync,
{
    const BLOCK: usize = 1 << 16;
    let all_finite = match rows.as_slice() {
        Some(values) => values
            .par_chunks(BLOCK)
            .all(|block| block.iter().fold(true, |ok, &v| ok & v.into().is_finite())),
        None => false,
    };
    if all_finite {
        return Ok(());
    }
    for (r, row) in rows.outer_iter().enumerate() {
        if let Some((c, &v)) = row
            .iter()
            .enumerate()
            .find(|(_, v)| !(**v).into().is_finite())
        {
            return Err(Error::data(
                path,
                Place::Field(format!("row {r}, column {c}")),
                format!("{} is not a finite number", v.into()),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array1, array};
    use ndarray_npy::write_npy;

    fn index(text: &str, path: &Path) -> SidIndex {
        SidIndex::parse(text.as_bytes(), path, None).unwrap()
    }

    #[test]
    fn reads_f32_and_f64_in_c_and_fortran_order() {
        let dir = tempfile::tempdir().unwrap();
        let a32 = array![[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let p = dir.path().join("a.npy");
        write_npy(&p, &a32).unwrap();
        let l = Latents::load(&p).unwrap();
        assert_eq!((l.n_rows(), l.dim(), l.dtype()), (2, 3, "float32"));
        let mut row = [0.0; 3];
        l.row_into(1, &mut row);
        assert_eq!(row, [4.0, 5.0, 6.0]);
        let fortran = a32
            .mapv(f64::from)
            .reversed_axes()
            .as_standard_layout()
            .to_owned();
        let fortran = fortran.reversed_axes();
        assert!(!fortran.is_standard_layout());
        write_npy(&p, &fortran).unwrap();
        let l = Latents::load(&p).unwrap();
        assert_eq!(l.dtype(), "float64");
        l.row_into(0, &mut row);
        assert_eq!(row, [1.0, 2.0, 3.0]);
    }

    #[test]
    fn wrong_dtype_or_ndim_says_what_was_found() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("i.npy");
        write_npy(&p, &Array1::<i64>::from(vec![1, 2, 3])).unwrap();
        let err = Latents::load(&p).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: expected a 2-D float32 or float64 array, found <i8 with shape (3,)",
                p.display()
            )
        );
        write_npy(&p, &array![[1.0f32]]).unwrap();
        let err = Codebooks::load(&p).unwrap_err().to_string();
        assert!(
            err.contains("expected a 3-D float32 or float64 array, found <f4 with shape (1, 1)")
        );
        std::fs::write(&p, b"not numpy").unwrap();
        assert!(
            Latents::load(&p)
                .unwrap_err()
                .to_string()
                .contains("is not a numpy .npy file")
        );
    }

    #[test]
    fn truncated_and_non_finite_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.npy");
        write_npy(&p, &array![[1.0f64, 2.0], [3.0, 4.0]]).unwrap();
        let bytes = std::fs::read(&p).unwrap();
        std::fs::write(&p, &bytes[..bytes.len() - 3]).unwrap();
        let err = Latents::load(&p).unwrap_err().to_string();
        assert!(
            err.contains("t.npy: the header announces shape (2, 2) of <f8 (32 bytes of values), but the file holds only 29 bytes"),
            "{err}"
        );
        write_npy(&p, &array![[1.0f32, 2.0], [3.0, f32::NAN]]).unwrap();
        let err = Latents::load(&p).unwrap_err().to_string();
        assert!(
            err.ends_with("t.npy: row 1, column 1: NaN is not a finite number"),
            "{err}"
        );
        let mut cb = Array3::<f64>::zeros((2, 3, 2));
        cb[[1, 2, 0]] = f64::INFINITY;
        let err = Codebooks::from_array(&p, cb).unwrap_err().to_string();
        assert!(
            err.contains("level b, code 2, component 0: inf is not a finite"),
            "{err}"
        );
    }

    #[test]
    fn shapes_must_fit_the_index() {
        let ipath = Path::new("idx.json");
        let idx = index(r#"{"0": [1, 2], "3": [1, 2]}"#, ipath);
        let lat = Latents::from_f64(Path::new("lat.npy"), Array2::zeros((3, 4))).unwrap();
        assert_eq!(
            lat.check_covers(&idx).unwrap_err().to_string(),
            "lat.npy has 3 rows, but idx.json needs row 3 for item \"3\" (row i is item id i)"
        );
        let lat = Latents::from_f64(Path::new("lat.npy"), Array2::zeros((4, 4))).unwrap();
        lat.check_covers(&idx).unwrap();
        let cb = Codebooks::from_array(Path::new("cb.npy"), Array3::zeros((3, 4, 4))).unwrap();
        assert_eq!(
            cb.check_fit(&idx, &lat).unwrap_err().to_string(),
            "cb.npy has 3 levels, but idx.json has 2 codes per item"
        );
        let cb = Codebooks::from_array(Path::new("cb.npy"), Array3::zeros((2, 2, 4))).unwrap();
        assert_eq!(
            cb.check_fit(&idx, &lat).unwrap_err().to_string(),
            "cb.npy has 2 codes per level, but idx.json uses code 2 (item \"0\")"
        );
        let cb = Codebooks::from_array(Path::new("cb.npy"), Array3::zeros((2, 4, 5))).unwrap();
        assert_eq!(
            cb.check_fit(&idx, &lat).unwrap_err().to_string(),
            "cb.npy has 5-dimensional codewords, but lat.npy has 4-dimensional rows"
        );
        let cb = Codebooks::from_array(Path::new("cb.npy"), Array3::zeros((2, 4, 4))).unwrap();
        cb.check_fit(&idx, &lat).unwrap();
    }

    #[test]
    fn header_parsing() {
        let h = NpyHeader::parse("{'descr': '<f4', 'fortran_order': True, 'shape': (4344, 384), }")
            .unwrap();
        assert_eq!(h.descr, "<f4");
        assert_eq!(h.shape, vec![4344, 384]);
        assert_eq!(h.shape_text(), "(4344, 384)");
        let h =
            NpyHeader::parse("{'descr': '|u1', 'fortran_order': False, 'shape': (), }").unwrap();
        assert_eq!(h.shape_text(), "()");
        assert!(NpyHeader::parse("{'descr': '<f4'}").is_err());
    }
}
