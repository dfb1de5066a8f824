//! PyTorch's `.pt` / `.pth` files (`torch.save`, the zip format of torch ≥ 1.6): a zip holding
//! `ARCHIVE/data.pkl` (the pickled object) and one raw storage per tensor in
//! `ARCHIVE/data/KEY`. Tensors are found anywhere in the object (a tensor, a state dict,
//! nested dicts and lists), named by their path (`encoder.weight`, `codes.0`).

use std::io::Read;

use super::pickle::{self, Value};

type Archive<'a> = zip::ZipArchive<std::io::Cursor<&'a [u8]>>;
use super::{Dtype, RawTensor};

/// Reads every tensor of a torch zip file; the message says what is wrong.
pub(super) fn read(bytes: &[u8]) -> Result<Vec<RawTensor>, String> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| format!("is not a readable torch.save zip archive ({e})"))?;
    let pkl_name = zip
        .file_names()
        .filter_map(Result::ok)
        .find(|n| n.ends_with("/data.pkl") && n.matches('/').count() == 1)
        .ok_or("is a zip archive without ARCHIVE/data.pkl, so not a torch.save file")?
        .to_string();
    let archive = pkl_name.trim_end_matches("data.pkl").to_string();
    let big_endian = match entry(&mut zip, &format!("{archive}byteorder"), bytes.len()) {
        Ok(order) => order.trim_ascii() == b"big",
        Err(_) => false,
    };
    let root = pickle::load(&entry(&mut zip, &pkl_name, bytes.len())?)
        .map_err(|e| format!("cannot read {pkl_name}: {e}"))?;
    let mut found = Vec::new();
    collect(&root, String::new(), &mut found)?;
    let mut tensors = Vec::with_capacity(found.len());
    for (name, t) in found {
        let storage = entry(&mut zip, &format!("{archive}data/{}", t.key), bytes.len())?;
        tensors.push(t.materialise(name, &storage, big_endian)?);
    }
    Ok(tensors)
}

/// One entry's bytes; its announced size reserves memory only up to the archive's length.
fn entry(zip: &mut Archive<'_>, name: &str, whole: usize) -> Result<Vec<u8>, String> {
    let mut file = zip
        .by_name(name)
        .map_err(|e| format!("cannot open {name} in the archive ({e})"))?;
    let mut out = Vec::with_capacity(file.size().min(whole as u64) as usize);
    file.read_to_end(&mut out)
        .map_err(|e| format!("cannot read {name} in the archive ({e})"))?;
    Ok(out)
}

/// A tensor as the pickle describes it: a view of `key`'s storage.
struct TensorRef {
    dtype: Dtype,
    key: String,
    offset: usize,
    shape: Vec<usize>,
    stride: Vec<usize>,
}

/// Walks the unpickled object, naming each tensor by its path.
fn collect(v: &Value, name: String, out: &mut Vec<(String, TensorRef)>) -> Result<(), String> {
    let join = |part: &str| {
        if name.is_empty() {
            part.to_string()
        } else {
            format!("{name}.{part}")
        }
    };
    match v {
        Value::Call(f, args) => {
            if let Value::Global(m, n) = &**f {
                match (m.as_str(), n.as_str()) {
                    ("torch._utils", "_rebuild_tensor" | "_rebuild_tensor_v2") => {
                        let t = tensor_ref(args).map_err(|e| {
                            let at = if name.is_empty() { "the tensor" } else { &name };
                            format!("{at}: {e}")
                        })?;
                        out.push((name, t));
                        return Ok(());
                    }
                    ("torch._utils", "_rebuild_parameter" | "_rebuild_parameter_with_state") => {
                        if let Some(data) = args.first() {
                            return collect(data, name, out);
                        }
                    }
                    _ => {}
                }
            }
            for a in args {
                collect(a, name.clone(), out)?;
            }
            Ok(())
        }
        Value::Dict(items) => {
            for (k, v) in items {
                let key = match k {
                    Value::Str(s) => s.clone(),
                    Value::Int(i) => i.to_string(),
                    _ => continue,
                };
                collect(v, join(&key), out)?;
            }
            Ok(())
        }
        Value::List(items) | Value::Tuple(items) => {
            for (i, v) in items.iter().enumerate() {
                collect(v, join(&i.to_string()), out)?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `_rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks, ...)`.
fn tensor_ref(args: &[Value]) -> Result<TensorRef, String> {
    let [storage, offset, size, stride, ..] = args else {
        return Err("a tensor is rebuilt with too few arguments".into());
    };
    let Value::Persistent(id) = storage else {
        return Err("a tensor's storage is not a persistent id".into());
    };
    let Value::Tuple(id) = &**id else {
        return Err("a storage id is not a tuple".into());
    };
    let (kind, key) = match id.as_slice() {
        [Value::Str(tag), Value::Global(_, kind), Value::Str(key), ..] if tag == "storage" => {
            (kind.as_str(), key.clone())
        }
        _ => return Err("a storage id is not ('storage', type, key, location, size)".into()),
    };
    let dtype = match kind {
        "FloatStorage" => Dtype::F32,
        "DoubleStorage" => Dtype::F64,
        "HalfStorage" => Dtype::F16,
        "BFloat16Storage" => Dtype::BF16,
        "LongStorage" => Dtype::I64,
        "IntStorage" => Dtype::I32,
        "ShortStorage" => Dtype::I16,
        "CharStorage" => Dtype::I8,
        "ByteStorage" => Dtype::U8,
        other => return Err(format!("tensors of {other} are not read (numbers only)")),
    };
    let ints = |v: &Value, what: &str| -> Result<Vec<usize>, String> {
        let bad = || format!("a tensor's {what} is not a tuple of whole numbers");
        match v {
            Value::Tuple(items) => items
                .iter()
                .map(|i| match i {
                    Value::Int(n) => usize::try_from(*n).map_err(|_| bad()),
                    _ => Err(bad()),
                })
                .collect(),
            _ => Err(bad()),
        }
    };
    let Value::Int(offset) = offset else {
        return Err("a tensor's storage offset is not a number".into());
    };
    let shape = ints(size, "size")?;
    let stride = ints(stride, "stride")?;
    if shape.len() != stride.len() {
        return Err("a tensor's size and stride differ in length".into());
    }
    Ok(TensorRef {
        dtype,
        key,
        offset: usize::try_from(*offset).map_err(|_| "a negative storage offset")?,
        shape,
        stride,
    })
}

impl TensorRef {
    /// The tensor's values in C order, little-endian, copied out of its storage.
    fn materialise(
        self,
        name: String,
        storage: &[u8],
        big_endian: bool,
    ) -> Result<RawTensor, String> {
        let size = self.dtype.size();
        let n: usize = self
            .shape
            .iter()
            .try_fold(1usize, |n, &d| n.checked_mul(d))
            .ok_or("a tensor's shape is impossibly large")?;
        let last = self
            .shape
            .iter()
            .zip(&self.stride)
            .try_fold(self.offset, |at, (&d, &s)| {
                at.checked_add(d.saturating_sub(1).checked_mul(s)?)
            });
        // A stride of 0 repeats values: allow some, not an expansion that cannot fit in memory.
        if n.checked_mul(size)
            .is_none_or(|b| b > storage.len().saturating_mul(64).max(1 << 20))
        {
            return Err(format!(
                "tensor {name:?} of shape {:?} repeats its storage data/{} too often to expand",
                self.shape, self.key
            ));
        }
        let fits = n == 0
            || last.is_some_and(|l| {
                l.checked_mul(size)
                    .is_some_and(|b| b + size <= storage.len())
            });
        if !fits {
            return Err(format!(
                "tensor {name:?} of shape {:?} reaches beyond its storage data/{} ({} bytes)",
                self.shape,
                self.key,
                storage.len()
            ));
        }
        let mut bytes = Vec::with_capacity(n * size);
        let mut index = vec![0usize; self.shape.len()];
        for _ in 0..n {
            let at = self.offset
                + index
                    .iter()
                    .zip(&self.stride)
                    .map(|(i, s)| i * s)
                    .sum::<usize>();
            let value = &storage[at * size..(at + 1) * size];
            if big_endian {
                bytes.extend(value.iter().rev());
            } else {
                bytes.extend_from_slice(value);
            }
            for d in (0..index.len()).rev() {
                index[d] += 1;
                if index[d] < self.shape[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(RawTensor {
            name,
            dtype: self.dtype,
            shape: self.shape,
            bytes,
        })
    }
}
