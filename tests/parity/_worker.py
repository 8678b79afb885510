"""The TensorFlow side of the parity tests: a long-lived process that runs programs on request.

`_forkserver.py` (run by the TensorFlow interpreter, `FERROFLOW_TF_PYTHON`) imports TensorFlow
once and forks one worker per test module, which serves that module's programs and hypothesis
examples. It speaks
length-prefixed pickles: 8 bytes of big-endian length, then the pickle.

    -> {"sources": [(text, file name, first line), ...], "entry", "args", "kwargs"}
    <- ("ok", comparable result)  or  ("harness-error", traceback text)

The first message, sent unasked, is ("ready", {"version": tensorflow version, "pid": process
id}). A program's exception is a result, not a failure: the worker keeps serving. The programs'
own output (print, tf.print) goes to stderr, never into the protocol stream.
"""

import os
import pickle
import struct
import sys
import traceback

HEADER = struct.Struct(">Q")


def _read_exactly(stream, count):
    data = bytearray()
    while len(data) < count:
        chunk = stream.read(count - len(data))
        if not chunk:
            return None
        data += chunk
    return bytes(data)


def _send(stream, message):
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(HEADER.pack(len(payload)) + payload)
    stream.flush()


def _protocol_streams():
    # The protocol keeps private copies of stdin/stdout; fd 1 becomes stderr so that whatever a
    # program (or TensorFlow) prints cannot corrupt a reply.
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return requests, replies


def import_tensorflow():
    """TensorFlow, quiet; raises what the import raises."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import tensorflow as tf

    tf.get_logger().setLevel("ERROR")
    return tf


def serve(tf, requests, replies):
    """Answers requests on the protocol streams until the client closes them."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from _convert import HarnessError, run_program, uses_keras

    _send(replies, ("ready", {"version": tf.__version__, "pid": os.getpid()}))

    while True:
        header = _read_exactly(requests, HEADER.size)
        if header is None:
            return
        request = pickle.loads(_read_exactly(requests, HEADER.unpack(header)[0]))
        try:
            # Keras keeps global state (layer name counters, the graph of symbolic tensors) that
            # one program must not leave to the next. Random seeds are left alone: each program
            # sets its own.
            if uses_keras(request):
                tf.keras.backend.clear_session()
            # TensorFlow's graph-mode map_fn/scan set a caching device on the global variable
            # scope and leave it set when the traced body raises; the next program's
            # recompute_grad then fails. Each program starts from TensorFlow's default (the
            # setter refuses eager mode, so the attribute is reset directly).
            tf.compat.v1.get_variable_scope()._caching_device = None
            result = run_program(
                tf, request["sources"], request["entry"], request["args"], request["kwargs"]
            )
            reply = ("ok", result)
        except HarnessError as error:
            reply = ("harness-error", str(error))
        except BaseException:
            reply = ("harness-error", traceback.format_exc())
        try:
            _send(replies, reply)
        except Exception:
            _send(replies, ("harness-error", traceback.format_exc()))
