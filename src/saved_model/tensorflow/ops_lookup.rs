//! TensorFlow's static hash-table ops, as the lookup tables of Keras's `StringLookup` and
//! `IntegerLookup` and `tf.lookup.StaticHashTable` save them: a resource made by `HashTableV2`
//! in the table's creator function, filled once by its initializer function
//! (`LookupTableImportV2` from tensors, `InitializeTableFromTextFileV2` from an asset file),
//! read by `LookupTableFindV2` and `LookupTableSizeV2`. Mutable tables keep their contents in
//! the checkpoint, which this importer does not restore: their ops stay unimplemented rather
//! than load empty.

use super::op_call::{one, OpCall};
use super::run_function::Value;
use crate::buffer::Buffer;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::strings::{string_tensor, strs};
use crate::tensor::Tensor;
use crate::tstring::TfString;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A table's key: the bytes of a string key, or an integer key's value.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Key {
    Bytes(Vec<u8>),
    Int(i64),
}

/// One value of a table.
#[derive(Clone, PartialEq)]
enum Entry {
    Bytes(Vec<u8>),
    Int(i64),
    Float(f64),
    Bool(bool),
}

/// The key and value dtypes TensorFlow registers its `HashTableV2` kernel for.
const KERNELS: [(DType, &[DType]); 3] = [
    (DType::String, &[DType::String, DType::I64, DType::I32, DType::F32, DType::F64, DType::Bool]),
    (DType::I64, &[DType::String, DType::I64, DType::I32, DType::F32, DType::F64]),
    (DType::I32, &[DType::String, DType::I32, DType::F32, DType::F64]),
];

struct TableState {
    key_dtype: DType,
    value_dtype: DType,
    entries: HashMap<Key, Entry>,
    initialized: bool,
}

/// A hash-table resource: shared by every function the SavedModel binds it to.
#[derive(Clone)]
pub struct Table(Arc<Mutex<TableState>>);

impl Table {
    fn state(&self) -> std::sync::MutexGuard<'_, TableState> {
        // A panic while holding the lock cannot leave a half-written table: inserts are
        // checked before any entry is added.
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub fn run(c: &OpCall) -> Result<Option<Vec<Value>>> {
    match c.op() {
        "HashTableV2" => {
            c.arity(0)?;
            let key_dtype = c.attrs.dtype_of("key_dtype")?;
            let value_dtype = c.attrs.dtype_of("value_dtype")?;
            let supported =
                KERNELS.iter().any(|(k, vs)| *k == key_dtype && vs.contains(&value_dtype));
            if !supported {
                return Err(c.unsupported("key_dtype, value_dtype", (key_dtype, value_dtype)));
            }
            let state =
                TableState { key_dtype, value_dtype, entries: HashMap::new(), initialized: false };
            Ok(Some(vec![Value::Table(Table(Arc::new(Mutex::new(state))))]))
        }
        "LookupTableImportV2" | "InitializeTableV2" => {
            c.arity(3)?;
            c.eager_only()?;
            let (keys, values) = (c.tensor(1)?, c.tensor(2)?);
            if keys.dims() != values.dims() {
                return Err(c.invalid(format!(
                    "keys of shape {} and values of shape {} must have the same shape",
                    keys.shape(),
                    values.shape()
                )));
            }
            let table = table(c)?;
            let (keys, values) = {
                let state = table.state();
                (keys_of(c, keys, state.key_dtype)?, entries_of(c, values, state.value_dtype)?)
            };
            initialize(&table, keys.into_iter().zip(values).collect())?;
            Ok(Some(Vec::new()))
        }
        "InitializeTableFromTextFileV2" => {
            c.arity(2)?;
            let table = table(c)?;
            let file = scalar_string(c, 1)?;
            let pairs = {
                let state = table.state();
                text_file_entries(c, &file, state.key_dtype, state.value_dtype)?
            };
            initialize(&table, pairs)?;
            Ok(Some(Vec::new()))
        }
        "LookupTableFindV2" => {
            c.arity(3)?;
            c.eager_only()?;
            let (keys, default) = (c.tensor(1)?, c.tensor(2)?);
            let table = table(c)?;
            let state = table.state();
            if !state.initialized {
                return Err(Error::FailedPrecondition("Table not initialized.".into()));
            }
            let keys_list = keys_of(c, keys, state.key_dtype)?;
            // TensorFlow takes a scalar or one shaped like the keys, and uses its first value.
            if default.rank() != 0 && default.dims() != keys.dims() {
                return Err(c.invalid(format!(
                    "Expected shape [] or {} for default value, got {}",
                    keys.shape(),
                    default.shape()
                )));
            }
            if default.num_elements() == 0 {
                return Err(c.invalid("the default value is empty"));
            }
            let default = entries_of(c, default, state.value_dtype)?.remove(0);
            let found = keys_list.iter().map(|k| state.entries.get(k).unwrap_or(&default).clone());
            one(tensor_of(state.value_dtype, found.collect(), keys.dims())?)
        }
        "LookupTableSizeV2" => {
            c.arity(1)?;
            c.eager_only()?;
            let size = table(c)?.state().entries.len() as i64;
            one(Tensor::scalar(size))
        }
        _ => Ok(None),
    }
}

fn table(c: &OpCall) -> Result<Table> {
    match c.value(0)? {
        Value::Table(t) => Ok(t.clone()),
        _ => Err(c.invalid("input 0 is not a hash table")),
    }
}

/// Fills a table once, as TensorFlow's initializable tables do: the same data again is a
/// no-op, other data a `FailedPrecondition`, and so is one key with two values.
fn initialize(table: &Table, pairs: Vec<(Key, Entry)>) -> Result<()> {
    let mut entries: HashMap<Key, Entry> = HashMap::with_capacity(pairs.len());
    for (key, value) in pairs {
        if let Some(old) = entries.get(&key) {
            if *old != value {
                return Err(Error::FailedPrecondition(format!(
                    "HashTable has different value for same key. Key {} has {} and trying to \
                     add value {}",
                    describe_key(&key),
                    describe_entry(old),
                    describe_entry(&value)
                )));
            }
        }
        entries.insert(key, value);
    }
    let mut state = table.state();
    if state.initialized {
        if state.entries == entries {
            return Ok(());
        }
        return Err(Error::FailedPrecondition(
            "Table was already initialized with different data.".into(),
        ));
    }
    state.entries = entries;
    state.initialized = true;
    Ok(())
}

fn type_error(c: &OpCall, what: &str, want: DType, got: DType) -> Error {
    c.invalid(format!("{what} must be type {} but got {}", want.name(), got.name()))
}

fn keys_of(c: &OpCall, t: &Tensor, dtype: DType) -> Result<Vec<Key>> {
    if t.dtype() != dtype {
        return Err(type_error(c, "Key", dtype, t.dtype()));
    }
    Ok(match t.host()? {
        Buffer::Str(v) => v.iter().map(|s| Key::Bytes(s.as_bytes().to_vec())).collect(),
        Buffer::I64(v) => v.iter().map(|&i| Key::Int(i)).collect(),
        Buffer::I32(v) => v.iter().map(|&i| Key::Int(i.into())).collect(),
        _ => return Err(type_error(c, "Key", dtype, t.dtype())),
    })
}

fn entries_of(c: &OpCall, t: &Tensor, dtype: DType) -> Result<Vec<Entry>> {
    if t.dtype() != dtype {
        return Err(type_error(c, "Value", dtype, t.dtype()));
    }
    Ok(match t.host()? {
        Buffer::Str(v) => v.iter().map(|s| Entry::Bytes(s.as_bytes().to_vec())).collect(),
        Buffer::I64(v) => v.iter().map(|&i| Entry::Int(i)).collect(),
        Buffer::I32(v) => v.iter().map(|&i| Entry::Int(i.into())).collect(),
        Buffer::F32(v) => v.iter().map(|&x| Entry::Float(x.into())).collect(),
        Buffer::F64(v) => v.iter().map(|&x| Entry::Float(x)).collect(),
        Buffer::Bool(v) => v.iter().map(|&b| Entry::Bool(b)).collect(),
        _ => return Err(type_error(c, "Value", dtype, t.dtype())),
    })
}

/// A tensor of `dtype` holding `entries` (all of that dtype: the table checked them).
fn tensor_of(dtype: DType, entries: Vec<Entry>, dims: &[usize]) -> Result<Tensor> {
    let int = |e: &Entry| match e {
        Entry::Int(i) => *i,
        _ => 0,
    };
    let float = |e: &Entry| match e {
        Entry::Float(x) => *x,
        _ => 0.0,
    };
    match dtype {
        DType::String => Ok(string_tensor(
            entries
                .into_iter()
                .map(|e| match e {
                    Entry::Bytes(b) => TfString::from_vec(b),
                    _ => TfString::default(),
                })
                .collect(),
            dims,
        )),
        DType::I64 => Tensor::from_slice(&entries.iter().map(int).collect::<Vec<_>>(), dims),
        DType::I32 => {
            let v: Vec<i32> = entries.iter().map(|e| int(e) as i32).collect();
            Tensor::from_slice(&v, dims)
        }
        DType::F32 => {
            let v: Vec<f32> = entries.iter().map(|e| float(e) as f32).collect();
            Tensor::from_slice(&v, dims)
        }
        DType::F64 => Tensor::from_slice(&entries.iter().map(float).collect::<Vec<_>>(), dims),
        DType::Bool => {
            let v: Vec<bool> = entries.iter().map(|e| matches!(e, Entry::Bool(true))).collect();
            Tensor::from_slice(&v, dims)
        }
        other => Err(Error::unsupported_dtype("LookupTableFindV2", other)),
    }
}

fn scalar_string(c: &OpCall, i: usize) -> Result<String> {
    let t = c.tensor(i)?;
    match (t.rank(), strs(t)) {
        (0, Ok([s])) => Ok(String::from_utf8_lossy(s.as_bytes()).into_owned()),
        _ => Err(c.invalid(format!("input {i} must be a string scalar"))),
    }
}

/// `TextFileIndex.WHOLE_LINE` and `LINE_NUMBER`, as the op's `key_index`/`value_index` say.
const WHOLE_LINE: i64 = -2;
const LINE_NUMBER: i64 = -1;

/// The (key, value) pairs a vocabulary file gives, as TensorFlow's `TextFileLineIterator`
/// reads it: one pair per line (a trailing `\r` dropped), each side the whole line, the line's
/// number plus `offset`, or one column split at `delimiter`; at most `vocab_size` lines, and
/// exactly that many when it is set.
fn text_file_entries(
    c: &OpCall,
    file: &str,
    key_dtype: DType,
    value_dtype: DType,
) -> Result<Vec<(Key, Entry)>> {
    let key_index = c.attrs.int("key_index")?;
    let value_index = c.attrs.int("value_index")?;
    let vocab_size = c.attrs.int("vocab_size")?;
    let delimiter = c.attrs.string("delimiter")?;
    let offset = c.attrs.int("offset")?;
    for (index, dtype) in [(key_index, key_dtype), (value_index, value_dtype)] {
        if index < WHOLE_LINE
            || (index == LINE_NUMBER && dtype != DType::I64)
            || (index == WHOLE_LINE && !matches!(dtype, DType::String | DType::I64 | DType::I32))
        {
            return Err(c.invalid(format!(
                "index {index} cannot fill a {} column of the table",
                dtype.name()
            )));
        }
    }
    let &[delimiter] = delimiter.as_bytes() else {
        return Err(c.invalid("delimiter should be only 1 char"));
    };
    let path = std::path::Path::new(file);
    let bytes = std::fs::read(path).map_err(|e| crate::checkpoint::io_error(e, path))?;
    let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if bytes.ends_with(b"\n") || bytes.is_empty() {
        lines.pop();
    }
    if vocab_size >= 0 {
        if (lines.len() as u64) < vocab_size as u64 {
            return Err(c.invalid(format!(
                "Invalid vocab_size in {file}: expected: {vocab_size}, got: {}",
                lines.len()
            )));
        }
        lines.truncate(vocab_size as usize);
    }
    if lines.is_empty() {
        return Err(Error::OutOfRange(format!("{file} has no lines to fill the table with")));
    }
    let column = |line: &[u8], number: usize, index: i64, dtype: DType| -> Result<Entry> {
        let token: Vec<u8> = match index {
            LINE_NUMBER => return Ok(Entry::Int((number as i64).wrapping_add(offset))),
            WHOLE_LINE => line.to_vec(),
            _ => {
                // Split as bytes: a key that is not UTF-8 must stay the bytes it is.
                let tokens: Vec<&[u8]> = line.split(|&b| b == delimiter).collect();
                let token = tokens.get(index as usize).ok_or_else(|| {
                    c.invalid(format!(
                        "Invalid number of columns in {file} line {number} ({}) : \
                         expected {} got {}",
                        String::from_utf8_lossy(line),
                        index + 1,
                        tokens.len()
                    ))
                })?;
                token.to_vec()
            }
        };
        parse(c, token, dtype, file, number, offset)
    };
    lines
        .iter()
        .enumerate()
        .map(|(number, line)| {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.is_empty() {
                return Err(c.invalid(format!(
                    "Invalid content in {file}: empty line found at position {number}."
                )));
            }
            let key = match column(line, number, key_index, key_dtype)? {
                Entry::Bytes(b) => Key::Bytes(b),
                Entry::Int(i) => Key::Int(i),
                _ => return Err(c.invalid("keys are strings or integers")),
            };
            Ok((key, column(line, number, value_index, value_dtype)?))
        })
        .collect()
}

/// A field as `dtype`; TensorFlow adds `offset` to int32 fields.
fn parse(
    c: &OpCall,
    token: Vec<u8>,
    dtype: DType,
    file: &str,
    line: usize,
    offset: i64,
) -> Result<Entry> {
    let text = String::from_utf8_lossy(&token);
    let bad = || {
        c.invalid(format!("Field {text} in line {line} of {file} is not a valid {}.", dtype.name()))
    };
    match dtype {
        DType::String => Ok(Entry::Bytes(token.clone())),
        DType::I64 => text.trim().parse::<i64>().map(Entry::Int).map_err(|_| bad()),
        DType::I32 => text
            .trim()
            .parse::<i32>()
            .map(|i| Entry::Int(i.wrapping_add(offset as i32).into()))
            .map_err(|_| bad()),
        DType::F32 | DType::F64 => text.trim().parse::<f64>().map(Entry::Float).map_err(|_| bad()),
        _ => Err(bad()),
    }
}

fn describe_key(key: &Key) -> String {
    match key {
        Key::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Key::Int(i) => i.to_string(),
    }
}

fn describe_entry(entry: &Entry) -> String {
    match entry {
        Entry::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Entry::Int(i) => i.to_string(),
        Entry::Float(x) => x.to_string(),
        Entry::Bool(b) => b.to_string(),
    }
}
