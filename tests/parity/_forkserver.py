"""Imports TensorFlow once and forks a fresh `_worker` for each client that connects.

Each parity module gets its own TensorFlow worker, because a program can leave TensorFlow's
global state changed for the next one. Starting a worker by importing TensorFlow costs about
3 s of CPU, which over ~190 modules was about 5 minutes of CI's wall time; a fork of this
process starts in milliseconds, with the same untouched state as a fresh import.

Forking is safe here because nothing has run an op yet: importing TensorFlow (and Keras)
starts no thread pools (the eager context creates them lazily), so the child is a plain
single-threaded copy. Python's and numpy's random states are copied too, which does not matter:
programs seed what they use.

    python _forkserver.py SOCKET_PATH

Prints "ready <tensorflow version>" (or a traceback) on stdout, then accepts connections on the
Unix socket SOCKET_PATH. A client sends one byte with its stderr file's descriptor attached
(SCM_RIGHTS); the forked worker writes its diagnostics there and speaks `_worker`'s protocol
over the connection. The server exits when its stdin closes (the test process is gone).
"""

import os
import select
import signal
import socket
import sys
import traceback

# Run as a script, this file's folder is on the path; pytest also imports it, as a module of
# the tests package.
try:
    from . import _worker
except ImportError:
    import _worker


def _serve_connection(tf, listener, connection):
    """In the forked child: becomes the worker for this connection, never returns."""
    status = 0
    try:
        listener.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _, descriptors, _, _ = socket.recv_fds(connection, 1, 1)
        if descriptors:
            os.dup2(descriptors[0], 2)
            os.close(descriptors[0])
        # `_worker._protocol_streams` takes the protocol from fds 0 and 1.
        os.dup2(connection.fileno(), 0)
        os.dup2(connection.fileno(), 1)
        connection.close()
        requests, replies = _worker._protocol_streams()
        _worker.serve(tf, requests, replies)
    except BaseException:
        traceback.print_exc()
        status = 1
    finally:
        sys.stderr.flush()
        os._exit(status)


def main(path):
    try:
        tf = _worker.import_tensorflow()
    except Exception:
        print(traceback.format_exc().replace("\n", "\\n"), flush=True)
        return
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    # Workers are never waited for: the kernel reaps them.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    print("ready", tf.__version__, flush=True)
    while True:
        ready, _, _ = select.select([listener, sys.stdin], [], [])
        if sys.stdin in ready and not os.read(sys.stdin.fileno(), 1):
            return
        if listener in ready:
            connection, _ = listener.accept()
            if os.fork() == 0:
                _serve_connection(tf, listener, connection)
            connection.close()


if __name__ == "__main__":
    main(sys.argv[1])
