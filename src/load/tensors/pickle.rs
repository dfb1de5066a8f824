//! The subset of Python's pickle that `torch.save` writes (protocols 2 to 5): plain values,
//! containers, globals and the persistent storage ids a `.pt` file's `data.pkl` refers to.
//! Nothing is executed: a global becomes a name, and only the calls torch uses to rebuild
//! tensors are understood.

use std::collections::HashMap;

/// A value of the pickle machine.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Value {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    Tuple(Vec<Value>),
    List(Vec<Value>),
    Dict(Vec<(Value, Value)>),
    /// `module.name`, not imported.
    Global(String, String),
    /// A persistent id (`BINPERSID`): torch's `('storage', type, key, location, numel)`.
    Persistent(Box<Value>),
    /// A call of a global (`REDUCE`, `NEWOBJ`) with its arguments, kept for the caller to read.
    Call(Box<Value>, Vec<Value>),
    /// The mark of `MARK`, only ever on the stack.
    Mark,
}

/// Runs the pickle program `bytes` and returns the value it builds; the message says which
/// opcode at which byte offset could not be read.
pub(super) fn load(bytes: &[u8]) -> Result<Value, String> {
    Machine {
        bytes,
        pos: 0,
        stack: Vec::new(),
        memo: HashMap::new(),
    }
    .run()
}

struct Machine<'a> {
    bytes: &'a [u8],
    pos: usize,
    stack: Vec<Value>,
    memo: HashMap<u32, Value>,
}

impl Machine<'_> {
    fn run(mut self) -> Result<Value, String> {
        loop {
            let at = self.pos;
            let op = self.take(1)?[0];
            let fail = |why: String| format!("pickle opcode 0x{op:02x} at byte {at}: {why}");
            match op {
                0x80 => {
                    self.take(1)?;
                } // PROTO
                0x95 => {
                    self.take(8)?;
                } // FRAME
                b'.' => return self.pop().map_err(fail), // STOP
                b'(' => self.stack.push(Value::Mark),
                b'N' => self.stack.push(Value::None),
                0x88 => self.stack.push(Value::Bool(true)),
                0x89 => self.stack.push(Value::Bool(false)),
                b'J' => {
                    let v = i32::from_le_bytes(self.array()?);
                    self.stack.push(Value::Int(v.into()));
                }
                b'K' => {
                    let v = self.take(1)?[0];
                    self.stack.push(Value::Int(v.into()));
                }
                b'M' => {
                    let v = u16::from_le_bytes(self.array()?);
                    self.stack.push(Value::Int(v.into()));
                }
                0x8a => {
                    let n = self.take(1)?[0] as usize;
                    let v = long(self.take(n)?).ok_or_else(|| fail("integer too large".into()))?;
                    self.stack.push(Value::Int(v));
                }
                b'G' => {
                    let v = f64::from_be_bytes(self.array()?);
                    self.stack.push(Value::Float(v));
                }
                b'X' => {
                    let n = u32::from_le_bytes(self.array()?) as usize;
                    let s = self.text(n).map_err(fail)?;
                    self.stack.push(Value::Str(s));
                }
                0x8c => {
                    let n = self.take(1)?[0] as usize;
                    let s = self.text(n).map_err(fail)?;
                    self.stack.push(Value::Str(s));
                }
                b'U' => {
                    let n = self.take(1)?[0] as usize;
                    let s = self.take(n)?.iter().map(|&b| b as char).collect();
                    self.stack.push(Value::Str(s));
                }
                b'T' => {
                    let n = u32::from_le_bytes(self.array()?) as usize;
                    let s = self.take(n)?.iter().map(|&b| b as char).collect();
                    self.stack.push(Value::Str(s));
                }
                b'C' => {
                    let n = self.take(1)?[0] as usize;
                    let b = self.take(n)?.to_vec();
                    self.stack.push(Value::Bytes(b));
                }
                b'B' => {
                    let n = u32::from_le_bytes(self.array()?) as usize;
                    let b = self.take(n)?.to_vec();
                    self.stack.push(Value::Bytes(b));
                }
                b')' => self.stack.push(Value::Tuple(Vec::new())),
                0x85..=0x87 => {
                    let n = (op - 0x84) as usize;
                    if self.stack.len() < n {
                        return Err(fail("the stack is too short".into()));
                    }
                    let items = self.stack.split_off(self.stack.len() - n);
                    self.stack.push(Value::Tuple(items));
                }
                b't' => {
                    let items = self.pop_mark().map_err(fail)?;
                    self.stack.push(Value::Tuple(items));
                }
                b']' => self.stack.push(Value::List(Vec::new())),
                b'l' => {
                    let items = self.pop_mark().map_err(fail)?;
                    self.stack.push(Value::List(items));
                }
                b'}' => self.stack.push(Value::Dict(Vec::new())),
                b'd' => {
                    let items = self.pop_mark().map_err(fail)?;
                    self.stack.push(Value::Dict(pairs(items)));
                }
                b'a' => {
                    let v = self.pop().map_err(fail)?;
                    match self.stack.last_mut() {
                        Some(Value::List(l)) => l.push(v),
                        _ => return Err(fail("APPEND without a list".into())),
                    }
                }
                b'e' => {
                    let items = self.pop_mark().map_err(fail)?;
                    match self.stack.last_mut() {
                        Some(Value::List(l)) => l.extend(items),
                        _ => return Err(fail("APPENDS without a list".into())),
                    }
                }
                b's' => {
                    let v = self.pop().map_err(fail)?;
                    let k = self.pop().map_err(fail)?;
                    self.set_items(vec![(k, v)]).map_err(fail)?;
                }
                b'u' => {
                    let items = self.pop_mark().map_err(fail)?;
                    self.set_items(pairs(items)).map_err(fail)?;
                }
                b'c' => {
                    let module = self.line().map_err(fail)?;
                    let name = self.line().map_err(fail)?;
                    self.stack.push(Value::Global(module, name));
                }
                0x93 => {
                    let name = self.pop().map_err(fail)?;
                    let module = self.pop().map_err(fail)?;
                    match (module, name) {
                        (Value::Str(m), Value::Str(n)) => self.stack.push(Value::Global(m, n)),
                        _ => return Err(fail("STACK_GLOBAL needs two strings".into())),
                    }
                }
                b'Q' => {
                    let id = self.pop().map_err(fail)?;
                    self.stack.push(Value::Persistent(Box::new(id)));
                }
                b'R' | 0x81 => {
                    let Value::Tuple(args) = self.pop().map_err(fail)? else {
                        return Err(fail("the arguments are not a tuple".into()));
                    };
                    let f = self.pop().map_err(fail)?;
                    self.stack.push(call(f, args));
                }
                b'b' => {
                    // BUILD sets an object's state; tensors and dicts keep what they were.
                    self.pop().map_err(fail)?;
                    if self.stack.is_empty() {
                        return Err(fail("BUILD on an empty stack".into()));
                    }
                }
                b'q' => {
                    let i = self.take(1)?[0];
                    self.put(i.into()).map_err(fail)?;
                }
                b'r' => {
                    let i = u32::from_le_bytes(self.array()?);
                    self.put(i).map_err(fail)?;
                }
                0x94 => {
                    let i = self.memo.len() as u32;
                    self.put(i).map_err(fail)?;
                }
                b'h' => {
                    let i = self.take(1)?[0];
                    self.get(i.into()).map_err(fail)?;
                }
                b'j' => {
                    let i = u32::from_le_bytes(self.array()?);
                    self.get(i).map_err(fail)?;
                }
                b'0' => {
                    self.pop().map_err(fail)?;
                }
                _ => return Err(fail("not an opcode torch.save writes".into())),
            }
        }
    }

    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| format!("the pickle ends early at byte {}", self.pos))?;
        let s = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        Ok(self.take(N)?.try_into().expect("take gives N bytes"))
    }

    fn text(&mut self, n: usize) -> Result<String, String> {
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| "a string is not UTF-8".into())
    }

    fn line(&mut self) -> Result<String, String> {
        let rest = &self.bytes[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == b'\n')
            .ok_or("a global's name has no end")?;
        let s = String::from_utf8_lossy(&rest[..n]).into_owned();
        self.pos += n + 1;
        Ok(s)
    }

    fn pop(&mut self) -> Result<Value, String> {
        match self.stack.pop() {
            Some(Value::Mark) | None => Err("the stack is empty".into()),
            Some(v) => Ok(v),
        }
    }

    fn pop_mark(&mut self) -> Result<Vec<Value>, String> {
        let at = self
            .stack
            .iter()
            .rposition(|v| matches!(v, Value::Mark))
            .ok_or("no MARK on the stack")?;
        let items = self.stack.split_off(at + 1);
        self.stack.pop();
        Ok(items)
    }

    fn set_items(&mut self, items: Vec<(Value, Value)>) -> Result<(), String> {
        match self.stack.last_mut() {
            Some(Value::Dict(d)) => {
                d.extend(items);
                Ok(())
            }
            // OrderedDict() and other mapping constructors are read as dicts.
            Some(Value::Call(_, args)) => {
                args.push(Value::Dict(items));
                Ok(())
            }
            _ => Err("SETITEM without a dict".into()),
        }
    }

    fn put(&mut self, i: u32) -> Result<(), String> {
        let top = self.stack.last().ok_or("PUT on an empty stack")?;
        self.memo.insert(i, top.clone());
        Ok(())
    }

    fn get(&mut self, i: u32) -> Result<(), String> {
        let v = self.memo.get(&i).ok_or("GET of a value never stored")?;
        self.stack.push(v.clone());
        Ok(())
    }
}

/// A call of `f`; an `OrderedDict()` becomes the dict its later items fill.
fn call(f: Value, args: Vec<Value>) -> Value {
    match &f {
        Value::Global(m, n) if m == "collections" && n == "OrderedDict" && args.is_empty() => {
            Value::Dict(Vec::new())
        }
        _ => Value::Call(Box::new(f), args),
    }
}

fn pairs(items: Vec<Value>) -> Vec<(Value, Value)> {
    let mut it = items.into_iter();
    let mut out = Vec::new();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    out
}

/// A little-endian two's-complement integer of up to 8 bytes (`LONG1`).
fn long(bytes: &[u8]) -> Option<i64> {
    if bytes.len() > 8 {
        return None;
    }
    let fill = if bytes.last().is_some_and(|&b| b & 0x80 != 0) {
        0xFF
    } else {
        0
    };
    let mut buf = [fill; 8];
    buf[..bytes.len()].copy_from_slice(bytes);
    Some(i64::from_le_bytes(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_torch_save_writes_for_a_tensor() {
        // torch.save(torch.zeros(3, 4)) with protocol 2, data.pkl verbatim.
        let pkl = b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01ctorch\nFloatStorage\nq\x02X\x01\x00\x00\x000q\x03X\x03\x00\x00\x00cpuq\x04K\x0ctq\x05QK\x00K\x03K\x04\x86q\x06K\x04K\x01\x86q\x07\x89ccollections\nOrderedDict\nq\x08)Rq\x09tq\x0aRq\x0b.";
        let v = load(pkl).unwrap();
        let Value::Call(f, args) = v else {
            panic!("{v:?}")
        };
        assert_eq!(
            *f,
            Value::Global("torch._utils".into(), "_rebuild_tensor_v2".into())
        );
        assert_eq!(args[2], Value::Tuple(vec![Value::Int(3), Value::Int(4)]));
        assert!(matches!(&args[0], Value::Persistent(_)));
    }

    #[test]
    fn broken_programs_say_where() {
        assert!(load(b"\x80\x02K").unwrap_err().contains("ends early"));
        let e = load(b"\x80\x02\xff").unwrap_err();
        assert_eq!(
            e,
            "pickle opcode 0xff at byte 2: not an opcode torch.save writes"
        );
        assert!(load(b"e.").unwrap_err().contains("no MARK"));
        assert_eq!(long(&[0xff]), Some(-1));
        assert_eq!(long(&[0x00, 0x01]), Some(256));
    }
}
