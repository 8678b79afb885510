//! One error type for the whole crate. Variants follow TensorFlow's canonical codes so that the
//! Python layer can raise the matching `tf.errors` class; `Type` and `Value` cover the places
//! where TensorFlow raises Python's own `TypeError` / `ValueError` instead.

use crate::dtype::DType;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    InvalidArgument(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    OutOfRange(String),
    #[error("{0}")]
    ResourceExhausted(String),
    #[error("{0}")]
    FailedPrecondition(String),
    #[error("{0}")]
    Unimplemented(String),
    #[error("{0}")]
    Internal(String),
    /// A file that is truncated, corrupt or not what it claims to be.
    #[error("{0}")]
    DataLoss(String),
    #[error("{0}")]
    PermissionDenied(String),
    /// The device went away (a lost GPU); TensorFlow's `UnavailableError`.
    #[error("{0}")]
    Unavailable(String),
    /// TensorFlow raises Python's `RuntimeError` (e.g. configuration after initialisation).
    #[error("{0}")]
    Runtime(String),
    /// TensorFlow raises Python's `TypeError` (e.g. a value that cannot take the requested dtype).
    #[error("{0}")]
    Type(String),
    /// TensorFlow raises Python's `ValueError` (e.g. a static shape that cannot work).
    #[error("{0}")]
    Value(String),
    /// An error raised by user code that Rust called back (a Python custom gradient), carried
    /// through unchanged so the caller sees the original exception.
    #[error("{0}")]
    External(ExternalError),
}

/// A foreign error behind a shared pointer; equal only to itself.
#[derive(Clone, Debug)]
pub struct ExternalError(pub std::sync::Arc<dyn std::error::Error + Send + Sync>);

impl std::fmt::Display for ExternalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for ExternalError {
    fn eq(&self, other: &Self) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// `op` was given a dtype it does not accept; worded like TensorFlow's op-definition check.
    pub fn unsupported_dtype(op: &str, dtype: DType) -> Self {
        Error::InvalidArgument(format!(
            "Value for attr 'T' of {} is not in the list of allowed values; NodeDef: {{{{node {op}}}}} [Op:{op}]",
            dtype.name()
        ))
    }

    /// Two inputs of one op disagree in dtype: TensorFlow never promotes silently.
    pub fn dtype_mismatch(op: &str, a: DType, b: DType) -> Self {
        Error::InvalidArgument(format!(
            "cannot compute {op} as input #1(zero-based) was expected to be a {} tensor but is a {} tensor [Op:{op}]",
            a.name(),
            b.name()
        ))
    }
}

/// Builds an `Error::InvalidArgument` from a format string.
#[macro_export]
macro_rules! invalid_arg {
    ($($arg:tt)*) => { $crate::error::Error::InvalidArgument(format!($($arg)*)) };
}
