//! The server's one error type: TensorFlow's status code and message, as TensorFlow Serving's
//! REST layer turns a failed `Status` into an HTTP status and a `{"error": ...}` body.

/// The TensorFlow status codes a request can fail with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Code {
    InvalidArgument,
    NotFound,
    FailedPrecondition,
    Unimplemented,
    Unavailable,
    Internal,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ServeError {
    pub code: Code,
    pub message: String,
}

pub type ServeResult<T> = std::result::Result<T, ServeError>;

impl ServeError {
    pub fn invalid(message: impl Into<String>) -> ServeError {
        ServeError { code: Code::InvalidArgument, message: message.into() }
    }

    pub fn not_found(message: impl Into<String>) -> ServeError {
        ServeError { code: Code::NotFound, message: message.into() }
    }

    pub fn unimplemented(message: impl Into<String>) -> ServeError {
        ServeError { code: Code::Unimplemented, message: message.into() }
    }

    pub fn internal(message: impl Into<String>) -> ServeError {
        ServeError { code: Code::Internal, message: message.into() }
    }

    /// The HTTP status TensorFlow Serving answers this code with (its `ToHTTPStatusCode`).
    pub fn http_status(&self) -> u16 {
        match self.code {
            Code::InvalidArgument | Code::FailedPrecondition => 400,
            Code::NotFound => 404,
            Code::Unimplemented => 501,
            Code::Unavailable => 503,
            Code::Internal => 500,
        }
    }

    /// The code's name as a TensorFlow `Status` prints it (`INVALID_ARGUMENT`).
    pub fn code_name(&self) -> &'static str {
        match self.code {
            Code::InvalidArgument => "INVALID_ARGUMENT",
            Code::NotFound => "NOT_FOUND",
            Code::FailedPrecondition => "FAILED_PRECONDITION",
            Code::Unimplemented => "UNIMPLEMENTED",
            Code::Unavailable => "UNAVAILABLE",
            Code::Internal => "INTERNAL",
        }
    }

    /// TensorFlow Serving's error body: `{"error": "<message>"}`.
    pub fn to_json(&self) -> String {
        serde_json::json!({ "error": self.message }).to_string()
    }
}

/// A model's own errors keep their TensorFlow code: a shape the signature does not take is the
/// client's mistake (400), a failing kernel the server's (500).
impl From<crate::Error> for ServeError {
    fn from(e: crate::Error) -> ServeError {
        use crate::Error as E;
        let code = match &e {
            E::InvalidArgument(_) | E::OutOfRange(_) | E::Type(_) | E::Value(_) => {
                Code::InvalidArgument
            }
            E::NotFound(_) => Code::NotFound,
            E::FailedPrecondition(_) => Code::FailedPrecondition,
            E::Unimplemented(_) => Code::Unimplemented,
            E::Unavailable(_) => Code::Unavailable,
            _ => Code::Internal,
        };
        ServeError { code, message: e.to_string() }
    }
}
