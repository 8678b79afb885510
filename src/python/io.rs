//! `tf.io`'s file formats: TFRecord files (`io/_tfrecord.py`, the TFRecord dataset),
//! SequenceExample parsing (`io/_parsing.py`; Examples parse through the `ParseExampleV2`
//! primitive) and serialized tensors; the work runs with the GIL released.

use super::convert::{to_tensor, Hint};
use super::errors::IntoPy;
use super::tensor::{wrap, PyTensor};
use crate::buffer::Buffer;
use crate::error::Error;
use crate::io::example::{self, Kind, Request, Values};
use crate::io::tensor_proto;
use crate::io::tfrecord::{Compression, TFRecordReader, TFRecordWriter};
use crate::shape::Shape;
use crate::tensor::Tensor;
use crate::tstring::TfString;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::Read;
use std::path::PathBuf;

/// `tf.io.TFRecordWriter`'s file: records framed with TensorFlow's masked CRC-32C.
#[pyclass(name = "TFRecordWriter", module = "ferroflow._core")]
pub struct PyTFRecordWriter {
    inner: TFRecordWriter,
}

#[pymethods]
impl PyTFRecordWriter {
    #[new]
    #[pyo3(signature = (path, compression_type = "", compression_level = -1, append = false))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        compression_type: &str,
        compression_level: i32,
        append: bool,
    ) -> PyResult<Self> {
        let compression = Compression::parse(compression_type).py()?;
        let inner = py
            .detach(|| TFRecordWriter::open(&path, compression, compression_level, append))
            .py()?;
        Ok(PyTFRecordWriter { inner })
    }

    fn write(&mut self, py: Python<'_>, record: &[u8]) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.write(record)).py()
    }

    fn flush(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.flush()).py()
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        py.detach(|| inner.close()).py()
    }
}

/// An iterator over the records of one TFRecord file, as `bytes`.
#[pyclass(name = "TFRecordReader", module = "ferroflow._core")]
pub struct PyTFRecordReader {
    inner: TFRecordReader<Box<dyn Read + Send + Sync>>,
    /// An error met after `read_many` had records to return: raised by the next call, so that
    /// the records before a damaged one arrive first (as TensorFlow's dataset yields them).
    pending: Option<crate::error::Error>,
}

#[pymethods]
impl PyTFRecordReader {
    #[new]
    #[pyo3(signature = (path, compression_type = "", buffer_size = 262144))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        compression_type: &str,
        buffer_size: usize,
    ) -> PyResult<Self> {
        let compression = Compression::parse(compression_type).py()?;
        let inner = py.detach(|| TFRecordReader::open(&path, compression, buffer_size)).py()?;
        Ok(PyTFRecordReader { inner, pending: None })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        if let Some(e) = self.pending.take() {
            return Err(e).py();
        }
        let inner = &mut self.inner;
        let record = py.detach(|| inner.read_record()).py()?;
        Ok(record.map(|r| PyBytes::new(py, &r)))
    }

    /// Up to `n` records at once (fewer at the end): one GIL release for many small records.
    fn read_many<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let records = self.take(py, n)?;
        Ok(records.iter().map(|r| PyBytes::new(py, r)).collect())
    }

    /// Up to `n` records as one string tensor of shape `[k]` (`tf.data`'s batch of a reader:
    /// no tensor per record); None at the end.
    fn read_batch(&mut self, py: Python<'_>, n: usize) -> PyResult<Option<Py<PyTensor>>> {
        let records = self.take(py, n)?;
        if records.is_empty() {
            return Ok(None);
        }
        let k = records.len();
        let strings = records.into_iter().map(TfString::from_vec).collect();
        let t = Tensor::from_buffer(Buffer::Str(strings), Shape::new(vec![k])).py()?;
        Ok(Some(wrap(py, t)?))
    }
}

impl PyTFRecordReader {
    /// Up to `n` records; an error after some records is kept for the next call, so that the
    /// records before a damaged one arrive first (as TensorFlow's dataset yields them).
    fn take(&mut self, py: Python<'_>, n: usize) -> PyResult<Vec<Vec<u8>>> {
        if let Some(e) = self.pending.take() {
            return Err(e).py();
        }
        let inner = &mut self.inner;
        let (records, error) = py.detach(|| {
            let mut out = Vec::with_capacity(n.min(4096));
            while out.len() < n {
                match inner.read_record() {
                    Ok(Some(r)) => out.push(r),
                    Ok(None) => break,
                    Err(e) => return (out, Some(e)),
                }
            }
            (out, None)
        });
        match error {
            Some(e) if records.is_empty() => return Err(e).py(),
            error => self.pending = error,
        }
        Ok(records)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyTFRecordWriter>()?;
    m.add_class::<PyTFRecordReader>()?;
    m.add_function(wrap_pyfunction!(parse_sequence_example_flat, m)?)?;
    m.add_function(wrap_pyfunction!(serialize_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(parse_tensor, m)?)?;
    m.add_function(wrap_pyfunction!(snappy_compress_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(snappy_decompress_blocks, m)?)?;
    m.add_function(wrap_pyfunction!(set_ram_root, m)?)?;
    m.add_function(wrap_pyfunction!(set_ram_implicit, m)?)?;
    Ok(())
}

/// Names the folder where `io/_ram_filesystem.py` keeps the `ram://` files, for `ReadFile`.
#[pyfunction]
fn set_ram_root(root: PathBuf) {
    crate::ops::read_file::set_ram_root(root);
}

/// The `ram://` names whose folders are no directories of the map (`io/_ram_filesystem.py`
/// publishes them whenever they change), for `ReadFile`'s NotFound.
#[pyfunction]
fn set_ram_implicit(names: Vec<String>) {
    crate::ops::read_file::set_ram_implicit(names);
}

/// `data` as TensorFlow's SNAPPY blocks (`tf.data` save files).
#[pyfunction]
fn snappy_compress_blocks<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Bound<'py, PyBytes>> {
    let out = py.detach(|| crate::io::snappy::compress_blocks(data)).py()?;
    Ok(PyBytes::new(py, &out))
}

/// The stream TensorFlow's SNAPPY blocks hold; DataLossError naming `path` when damaged.
#[pyfunction]
fn snappy_decompress_blocks<'py>(
    py: Python<'py>,
    data: &[u8],
    path: &str,
) -> PyResult<Bound<'py, PyBytes>> {
    let out = py.detach(|| crate::io::snappy::decompress_blocks(data, path)).py()?;
    Ok(PyBytes::new(py, &out))
}

/// One requested feature, as `_parsing.py` describes it:
/// (key, dtype name, fixed size, shape text, stride, required, dense).
type RequestTuple = (String, String, Option<usize>, String, Option<usize>, bool, bool);

fn requests(tuples: Vec<RequestTuple>) -> PyResult<Vec<Request>> {
    tuples
        .into_iter()
        .map(|(key, dtype, size, shape, stride, required, dense)| {
            let kind = match dtype.as_str() {
                "float32" => Kind::Float,
                "int64" => Kind::Int64,
                "string" => Kind::Bytes,
                other => {
                    return Err(Error::InvalidArgument(format!(
                        "Value for attr 'Tdense' of {other} is not in the list of allowed \
                         values: float, int64, string"
                    )))
                    .py()
                }
            };
            Ok(Request { key, kind, size, shape, stride, required, dense })
        })
        .collect()
}

fn values(v: Values) -> Tensor {
    let n = v.len();
    v.into_tensor(&[n])
}

fn i64_tensor(v: Vec<i64>) -> Tensor {
    let n = v.len();
    Tensor::from_buffer_unchecked(Buffer::I64(v), Shape(vec![n]))
}

/// The serialized records: a string tensor of any shape, read row-major.
fn records(serialized: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    to_tensor(serialized, Hint::Require(crate::dtype::DType::String))
}

fn record_slices(t: &Tensor) -> PyResult<Vec<&[u8]>> {
    match t.host().py()? {
        Buffer::Str(v) => Ok(v.iter().map(|s| s.as_bytes()).collect()),
        _ => Err(Error::InvalidArgument("serialized must be a string tensor".into())).py(),
    }
}

/// `parse_sequence_example`'s primitive: per context feature (flat values, per-example counts;
/// -1 = absent), and per
/// feature list (flat values, steps per example (-1 = absent), values per step).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn parse_sequence_example_flat(
    py: Python<'_>,
    serialized: &Bound<'_, PyAny>,
    names: Vec<String>,
    context: Vec<RequestTuple>,
    lists: Vec<RequestTuple>,
) -> PyResult<(Vec<(Py<PyTensor>, Py<PyTensor>)>, Vec<(Py<PyTensor>, Py<PyTensor>, Py<PyTensor>)>)>
{
    let t = records(serialized)?;
    let (context, lists) = (requests(context)?, requests(lists)?);
    let slices = record_slices(&t)?;
    let (c, l) =
        py.detach(|| example::parse_sequence_examples(&slices, &names, &context, &lists)).py()?;
    let c = c
        .into_iter()
        .map(|p| Ok((wrap(py, values(p.values))?, wrap(py, i64_tensor(p.counts))?)))
        .collect::<PyResult<_>>()?;
    let l = l
        .into_iter()
        .map(|p| {
            Ok((
                wrap(py, values(p.values))?,
                wrap(py, i64_tensor(p.steps))?,
                wrap(py, i64_tensor(p.counts))?,
            ))
        })
        .collect::<PyResult<_>>()?;
    Ok((c, l))
}

/// `tf.io.serialize_tensor`: the TensorProto bytes of a tensor.
#[pyfunction]
fn serialize_tensor<'py>(
    py: Python<'py>,
    tensor: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let t = to_tensor(tensor, Hint::Infer)?;
    let bytes = py.detach(|| tensor_proto::serialize(&t)).py()?;
    Ok(PyBytes::new(py, &bytes))
}

/// `tf.io.parse_tensor`: TensorProto bytes back to a tensor of dtype enum `out_type`.
#[pyfunction]
fn parse_tensor(py: Python<'_>, serialized: &[u8], out_type: u32) -> PyResult<Py<PyTensor>> {
    let dtype = crate::dtype::DType::from_enum(out_type).py()?;
    let t = py.detach(|| tensor_proto::parse(serialized, dtype)).py()?;
    wrap(py, t)
}
