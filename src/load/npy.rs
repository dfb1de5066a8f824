//! Minimal `.npy` matrix reading (float32 or float64, C or Fortran order) for the embeddings
//! the projection needs; errors say what was expected in words a user understands.

use std::path::Path;

use ndarray::{Array2, ArrayView2};
use ndarray_npy::{ReadNpyError, read_npy};

use crate::error::{Error, Place, Result};

/// A 2-D float array as stored in the file: float32 stays float32 (half the memory).
#[derive(Debug, Clone)]
pub enum FloatMatrix {
    /// A `<f4` file.
    F32(Array2<f32>),
    /// A `<f8` file.
    F64(Array2<f64>),
}

impl FloatMatrix {
    /// Rows (items).
    pub fn nrows(&self) -> usize {
        match self {
            FloatMatrix::F32(a) => a.nrows(),
            FloatMatrix::F64(a) => a.nrows(),
        }
    }

    /// Columns (dimensions).
    pub fn ncols(&self) -> usize {
        match self {
            FloatMatrix::F32(a) => a.ncols(),
            FloatMatrix::F64(a) => a.ncols(),
        }
    }

    /// The float32 view, when the file held float32.
    pub fn as_f32(&self) -> Option<ArrayView2<'_, f32>> {
        match self {
            FloatMatrix::F32(a) => Some(a.view()),
            FloatMatrix::F64(_) => None,
        }
    }

    /// The float64 view, when the file held float64.
    pub fn as_f64(&self) -> Option<ArrayView2<'_, f64>> {
        match self {
            FloatMatrix::F64(a) => Some(a.view()),
            FloatMatrix::F32(_) => None,
        }
    }
}

/// Reads a 2-D float32 or float64 `.npy` file.
pub fn read_float_matrix(path: &Path) -> Result<FloatMatrix> {
    if path.is_dir() {
        return Err(Error::data(path, Place::File, "is a directory, not a file"));
    }
    match read_npy::<_, Array2<f32>>(path) {
        Ok(a) => Ok(FloatMatrix::F32(a)),
        Err(ReadNpyError::WrongDescriptor(_)) => match read_npy::<_, Array2<f64>>(path) {
            Ok(a) => Ok(FloatMatrix::F64(a)),
            Err(e) => Err(explain(path, e)),
        },
        Err(e) => Err(explain(path, e)),
    }
}

fn explain(path: &Path, err: ReadNpyError) -> Error {
    let message = match err {
        ReadNpyError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends inside the .npy header; is it truncated?".to_string()
        }
        ReadNpyError::Io(e) => return Error::io(path, e),
        ReadNpyError::WrongDescriptor(d) => {
            format!("expected float32 ('<f4') or float64 ('<f8') values, the file holds {d}")
        }
        ReadNpyError::WrongNdim(_, ndim) => {
            format!("expected a 2-D array (rows × dimensions), the file holds a {ndim}-D array")
        }
        ReadNpyError::MissingData => {
            "the file ends before all the values its header announces; is it truncated?".to_string()
        }
        ReadNpyError::ExtraBytes(n) => format!("{n} unexpected bytes after the array data"),
        other => format!("not a valid .npy file ({other})"),
    };
    Error::data(path, Place::File, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::ShapeBuilder;
    use ndarray_npy::write_npy;

    #[test]
    fn reads_f32_f64_and_fortran_order() {
        let dir = tempfile::tempdir().unwrap();
        let f32_path = dir.path().join("a.npy");
        let data = Array2::from_shape_fn((3, 2), |(i, j)| (i * 2 + j) as f32);
        write_npy(&f32_path, &data).unwrap();
        let m = read_float_matrix(&f32_path).unwrap();
        assert_eq!(m.as_f32().unwrap(), data.view());
        assert_eq!((m.nrows(), m.ncols()), (3, 2));
        let f64_path = dir.path().join("b.npy");
        let mut fortran = Array2::<f64>::zeros((3, 2).f());
        fortran.assign(&data.mapv(f64::from));
        write_npy(&f64_path, &fortran).unwrap();
        let m = read_float_matrix(&f64_path).unwrap();
        assert_eq!(m.as_f64().unwrap(), fortran.view());
    }

    #[test]
    fn wrong_inputs_are_explained() {
        let dir = tempfile::tempdir().unwrap();
        let ints = dir.path().join("i.npy");
        write_npy(&ints, &Array2::<i32>::zeros((2, 2))).unwrap();
        let e = read_float_matrix(&ints).unwrap_err().to_string();
        assert!(e.contains("expected float32") && e.contains("i.npy"), "{e}");
        let flat = dir.path().join("v.npy");
        write_npy(&flat, &ndarray::Array1::<f32>::zeros(4)).unwrap();
        let e = read_float_matrix(&flat).unwrap_err().to_string();
        assert!(e.contains("2-D array"), "{e}");
        let cut = dir.path().join("c.npy");
        let bytes = std::fs::read(&ints).unwrap();
        std::fs::write(&cut, &bytes[..bytes.len() - 3]).unwrap();
        assert!(read_float_matrix(&cut).is_err());
        let e = read_float_matrix(&dir.path().join("none.npy")).unwrap_err();
        assert!(matches!(e, Error::Io { .. }));
    }
}
