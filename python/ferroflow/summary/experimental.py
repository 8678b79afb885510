"""`tf.summary.experimental`: the default step, `summary_scope` for custom summary ops and
`write_raw_pb` for serialized `Summary` protos."""

from ferroflow.summary._state import get_step, set_step
from ferroflow.summary._write import summary_scope, write_raw_pb

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
