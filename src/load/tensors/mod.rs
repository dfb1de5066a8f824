//! Tensor files other than `.npy`: `.safetensors` (the `safetensors` crate) and PyTorch's
//! `.pt` / `.pth` (a zip of a pickle and raw storages). Told apart by their first bytes, not by
//! name. A file with several tensors names the one to read as `FILE#NAME` (`listing` in the
//! message when it is not given).

mod pickle;
mod safetensors_file;
mod torch_file;

use std::path::{Path, PathBuf};

use crate::error::{Error, Place, Result};

/// The element types read from tensor files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dtype {
    /// float32
    F32,
    /// float64
    F64,
    /// float16 (read as float32)
    F16,
    /// bfloat16 (read as float32)
    BF16,
    /// int64
    I64,
    /// int32
    I32,
    /// int16
    I16,
    /// int8
    I8,
    /// uint8
    U8,
    /// uint16
    U16,
    /// uint32
    U32,
    /// uint64
    U64,
}

impl Dtype {
    fn size(self) -> usize {
        match self {
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F16 | Dtype::BF16 | Dtype::I16 | Dtype::U16 => 2,
            Dtype::I8 | Dtype::U8 => 1,
        }
    }

    /// The name numpy and torch print.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::F64 => "float64",
            Dtype::F16 => "float16",
            Dtype::BF16 => "bfloat16",
            Dtype::I64 => "int64",
            Dtype::I32 => "int32",
            Dtype::I16 => "int16",
            Dtype::I8 => "int8",
            Dtype::U8 => "uint8",
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
            Dtype::U64 => "uint64",
        }
    }

    fn is_float(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F64 | Dtype::F16 | Dtype::BF16)
    }
}

/// One tensor: its values in C order, little-endian.
#[derive(Debug, Clone)]
pub struct RawTensor {
    name: String,
    dtype: Dtype,
    shape: Vec<usize>,
    bytes: Vec<u8>,
}

/// What a vector or code file is, by its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TensorFormat {
    /// numpy `.npy`
    Npy,
    /// `.safetensors`
    Safetensors,
    /// `torch.save` zip (`.pt`, `.pth`)
    Torch,
}

impl TensorFormat {
    /// The format's usual name, for messages.
    pub fn name(self) -> &'static str {
        match self {
            TensorFormat::Npy => ".npy",
            TensorFormat::Safetensors => ".safetensors",
            TensorFormat::Torch => ".pt",
        }
    }
}

/// Tells the format from a file's first bytes (at least 9 of them for safetensors).
pub fn detect(head: &[u8]) -> Option<TensorFormat> {
    if head.starts_with(b"\x93NUMPY") {
        Some(TensorFormat::Npy)
    } else if head.starts_with(b"PK\x03\x04") {
        Some(TensorFormat::Torch)
    } else if head.len() > 8
        && head[8] == b'{'
        && crate::io::columnar::TableFormat::from_magic(head).is_none()
    {
        // A safetensors header length, then its JSON; a Parquet page can look alike.
        Some(TensorFormat::Safetensors)
    } else {
        None
    }
}

/// The file at `path`, or `FILE#NAME` split into the file and the tensor's name when `path`
/// itself does not exist.
pub fn split_name(path: &Path) -> (PathBuf, Option<String>) {
    if !path.exists()
        && let Some(text) = path.to_str()
        && let Some((file, name)) = text.rsplit_once('#')
        && Path::new(file).is_file()
    {
        return (PathBuf::from(file), Some(name.to_string()));
    }
    (path.to_path_buf(), None)
}

/// The format of the file at `path` (a `FILE#NAME` counts as FILE), `None` when it is none
/// of the three; errors are those of opening it.
pub fn format_of(path: &Path) -> Result<Option<TensorFormat>> {
    let (file, _) = split_name(path);
    let (mut f, _) = crate::io::input::open_regular(&file)?;
    let mut head = [0u8; 16];
    let mut got = 0;
    while got < head.len() {
        match std::io::Read::read(&mut f, &mut head[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) => return Err(Error::io(&file, e)),
        }
    }
    Ok(detect(&head[..got]))
}

/// Reads the one tensor of a `.safetensors` or `.pt` file at `path` (`FILE#NAME` picks one of
/// several) that must have `ndim` dimensions. `what` says what it is for in messages.
pub fn read_one(path: &Path, ndim: usize, what: &str) -> Result<RawTensor> {
    let (file, wanted) = split_name(path);
    let bytes = std::fs::read(&file).map_err(|e| Error::io(&file, e))?;
    let format = detect(&bytes).ok_or_else(|| {
        Error::data(
            &file,
            Place::File,
            "is neither a .npy, a .safetensors nor a torch.save (.pt) file",
        )
    })?;
    let tensors = match format {
        TensorFormat::Safetensors => safetensors_file::read(&bytes),
        TensorFormat::Torch => torch_file::read(&bytes),
        TensorFormat::Npy => unreachable!("npy files are read by load::vectors"),
    }
    .map_err(|m| Error::data(&file, Place::File, m))?;
    let listing = |ts: &[RawTensor]| {
        ts.iter()
            .map(|t| format!("{} {:?} {}", t.name, t.shape, t.dtype.name()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let chosen = match wanted {
        Some(name) => {
            let at = tensors.iter().position(|t| t.name == name);
            match at {
                Some(i) => tensors.into_iter().nth(i).expect("found above"),
                None => {
                    return Err(Error::data(
                        &file,
                        Place::File,
                        format!(
                            "has no tensor named {name:?}; it holds {}",
                            listing(&tensors)
                        ),
                    ));
                }
            }
        }
        None => {
            let mut fitting: Vec<RawTensor> = tensors
                .iter()
                .filter(|t| t.shape.len() == ndim)
                .cloned()
                .collect();
            match (tensors.len(), fitting.len()) {
                (0, _) => {
                    return Err(Error::data(&file, Place::File, "holds no tensor"));
                }
                (_, 1) => fitting.pop().expect("one"),
                (1, 0) => tensors.into_iter().next().expect("one"),
                _ => {
                    return Err(Error::data(
                        &file,
                        Place::File,
                        format!(
                            "holds several tensors; name the {ndim}-D one to read as {}#NAME ({what}); it holds {}",
                            file.display(),
                            listing(&tensors)
                        ),
                    ));
                }
            }
        }
    };
    if chosen.shape.len() != ndim {
        return Err(Error::data(
            &file,
            chosen.place(),
            format!(
                "expected a {ndim}-D tensor ({what}), found shape {:?} of {}",
                chosen.shape,
                chosen.dtype.name()
            ),
        ));
    }
    Ok(chosen)
}

impl RawTensor {
    /// The tensor's name in its file (empty for a lone tensor of a `.pt`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The element type in the file.
    pub fn dtype(&self) -> Dtype {
        self.dtype
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Where the tensor is, for messages: `tensor "codebooks"`, or the file.
    pub fn place(&self) -> Place {
        if self.name.is_empty() {
            Place::File
        } else {
            Place::Field(format!("tensor {:?}", self.name))
        }
    }

    fn values<const N: usize>(&self) -> impl Iterator<Item = [u8; N]> + '_ {
        self.bytes
            .chunks_exact(N)
            .map(|c| c.try_into().expect("chunks of N"))
    }

    /// The values as float64 (floating-point tensors only; float16 and bfloat16 widen exactly).
    pub fn to_f64(&self, path: &Path, what: &str) -> Result<Vec<f64>> {
        Ok(match self.dtype {
            Dtype::F64 => self.values().map(f64::from_le_bytes).collect(),
            _ => self
                .to_f32(path, what)?
                .into_iter()
                .map(f64::from)
                .collect(),
        })
    }

    /// The values as float32 (float64 files are refused here: use [`RawTensor::to_f64`]).
    pub fn to_f32(&self, path: &Path, what: &str) -> Result<Vec<f32>> {
        Ok(match self.dtype {
            Dtype::F32 => self.values().map(f32::from_le_bytes).collect(),
            Dtype::F16 => self
                .values()
                .map(|b| half::f16::from_le_bytes(b).to_f32())
                .collect(),
            Dtype::BF16 => self
                .values()
                .map(|b| half::bf16::from_le_bytes(b).to_f32())
                .collect(),
            Dtype::F64 => self
                .values()
                .map(|b| f64::from_le_bytes(b) as f32)
                .collect(),
            other => {
                return Err(Error::data(
                    path,
                    self.place(),
                    format!("{what} must be floating-point, found {}", other.name()),
                ));
            }
        })
    }

    /// The values as integers (integer tensors only: codes).
    pub fn to_i64(&self, path: &Path, what: &str) -> Result<Vec<i64>> {
        Ok(match self.dtype {
            Dtype::I64 => self.values().map(i64::from_le_bytes).collect(),
            Dtype::I32 => self
                .values()
                .map(|b| i32::from_le_bytes(b).into())
                .collect(),
            Dtype::I16 => self
                .values()
                .map(|b| i16::from_le_bytes(b).into())
                .collect(),
            Dtype::I8 => self.values().map(|b| i8::from_le_bytes(b).into()).collect(),
            Dtype::U8 => self.bytes.iter().map(|&b| b.into()).collect(),
            Dtype::U16 => self
                .values()
                .map(|b| u16::from_le_bytes(b).into())
                .collect(),
            Dtype::U32 => self
                .values()
                .map(|b| u32::from_le_bytes(b).into())
                .collect(),
            Dtype::U64 => self
                .values()
                .map(|b| i64::try_from(u64::from_le_bytes(b)).unwrap_or(i64::MAX))
                .collect(),
            other => {
                debug_assert!(other.is_float());
                return Err(Error::data(
                    path,
                    self.place(),
                    format!("{what} must be integers, found {}", other.name()),
                ));
            }
        })
    }
}

/// The format of `path` when it is a regular file holding a tensor format (`FILE#NAME`
/// counts as FILE); `None` for anything else, such as JSON or standard input.
pub fn sniff(path: &Path) -> Option<TensorFormat> {
    let (file, _) = split_name(path);
    if !file.is_file() {
        return None;
    }
    format_of(&file).ok().flatten()
}

/// Codes of an N×L integer tensor (`.safetensors` or `.pt`): row i holds item i's codes.
/// Returns the values and the shape; the message names the tensor and the bad value.
pub fn read_code_matrix(path: &Path) -> Result<(Vec<i64>, usize, usize)> {
    let t = read_one(path, 2, "SID codes, N items × L levels")?;
    let (file, _) = split_name(path);
    Ok((t.to_i64(&file, "SID codes")?, t.shape[0], t.shape[1]))
}
