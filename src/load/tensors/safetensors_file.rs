//! `.safetensors` files through the `safetensors` crate: a JSON header of names, dtypes,
//! shapes and offsets, then the raw little-endian values.

use safetensors::{Dtype as St, SafeTensors};

use super::{Dtype, RawTensor};

/// Reads every tensor of a safetensors file, in the header's (alphabetical) order.
pub(super) fn read(bytes: &[u8]) -> Result<Vec<RawTensor>, String> {
    let file = SafeTensors::deserialize(bytes)
        .map_err(|e| format!("is not a readable .safetensors file ({e})"))?;
    let mut names = file.names();
    names.sort();
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let view = file
            .tensor(name)
            .map_err(|e| format!("tensor {name:?}: {e}"))?;
        let dtype = match view.dtype() {
            St::F32 => Dtype::F32,
            St::F64 => Dtype::F64,
            St::F16 => Dtype::F16,
            St::BF16 => Dtype::BF16,
            St::I64 => Dtype::I64,
            St::I32 => Dtype::I32,
            St::I16 => Dtype::I16,
            St::I8 => Dtype::I8,
            St::U8 => Dtype::U8,
            St::U16 => Dtype::U16,
            St::U32 => Dtype::U32,
            St::U64 => Dtype::U64,
            other => {
                return Err(format!(
                    "tensor {name:?} is {other:?}; only numbers are read"
                ));
            }
        };
        out.push(RawTensor {
            name: name.to_string(),
            dtype,
            shape: view.shape().to_vec(),
            bytes: view.data().to_vec(),
        });
    }
    Ok(out)
}
