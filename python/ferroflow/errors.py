"""TensorFlow's exception classes (`tf.errors`), raised by ferroflow with the same meaning."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """The base class of errors raised while running an op."""

    error_code = UNKNOWN

    def __init__(self, node_def, op, message, *args):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message

    def __str__(self):
        return self.message


def _error(name, code, doc):
    return type(name, (OpError,), {"error_code": code, "__doc__": doc, "__module__": __name__})


CancelledError = _error("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _error("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _error(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument."
)
DeadlineExceededError = _error("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _error("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _error("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _error("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
ResourceExhaustedError = _error(
    "ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource has been exhausted."
)
FailedPreconditionError = _error(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run the op."
)
AbortedError = _error("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _error("OutOfRangeError", OUT_OF_RANGE, "An operation went past a valid range.")
UnimplementedError = _error(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented."
)
InternalError = _error("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _error("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _error("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _error("UnauthenticatedError", UNAUTHENTICATED, "Not authenticated.")


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation (such as `bool()`) on a symbolic tensor inside a `tf.function`."""
