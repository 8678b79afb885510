"""`tf.io.gfile` against TensorFlow: each program works in a fresh directory under a temporary
one (TensorFlow's run first, then ferroflow's, each in its own directory) and returns what it
saw with the directory's path taken out, plus the class and message of each error."""

from .harness import assert_parity


def _outcome(tf, base, fn):
    """The result of ``fn()`` (paths relative to ``base``) or its error's class and message."""

    def relative(value):
        if isinstance(value, str):
            return value.replace(base, "<d>")
        if isinstance(value, (list, tuple)):
            return type(value)(relative(v) for v in value)
        return value

    try:
        return relative(fn())
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return (type(e).__name__, relative(str(e)))


def _files(tf, root):
    import os
    import tempfile

    base = tempfile.mkdtemp(dir=root)
    g = tf.io.gfile
    p = os.path.join(base, "f.txt")
    out = []

    def o(fn):
        out.append(_outcome(tf, base, fn))

    o(lambda: g.GFile(p).read())  # missing: NotFoundError at the first read
    o(lambda: g.GFile(p, "x"))
    with g.GFile(p, "w") as f:
        o(lambda: f.write("hello\nworld\n"))
        o(lambda: f.write(b"last"))
        o(lambda: f.tell())
        o(lambda: f.read())
        o(lambda: f.write(3))
    f = g.GFile(p)
    o(lambda: (f.size(), f.tell(), f.read(3), f.tell(), f.readline(), f.readlines()))
    o(lambda: (f.seek(0), list(f), f.read(), f.read(0)))
    o(lambda: (f.seek(2), f.seek(1, 1), f.read(2), f.seek(-2, 2), f.read()))
    o(lambda: f.seek(0, 3))
    o(lambda: f.seek(-1))
    o(lambda: f.read(-2))
    o(lambda: f.seek(100))
    o(lambda: (f.tell(), f.read()))
    o(lambda: f.write("x"))
    f.close()
    o(lambda: f.read(5))  # a closed GFile opens again
    fb = g.GFile(p, "rb")
    o(lambda: (fb.read(4), fb.readline(), fb.readlines(), fb.mode, fb.seekable()))
    with g.GFile(p, "a") as f:
        f.write("+app")
        o(lambda: f.tell())
    with g.GFile(p, "r+") as f:
        o(lambda: f.read())
        f.write("Q")  # r+ truncates at the first write
    o(lambda: g.GFile(p, "rb").read())
    with g.GFile(p, "w+") as f:
        f.write("abc")
        o(lambda: (f.size(), f.read()))
        f.flush()
        o(lambda: (f.size(), f.read()))
    o(lambda: g.GFile(os.path.join(base, "none", "x"), "w").write("a"))
    o(lambda: g.GFile(base).read())
    o(lambda: g.GFile(os.path.join(base, "new"), "wb").size())
    u = os.path.join(base, "u.txt")
    with open(u, "wb") as h:
        h.write("é\r\nb\rc".encode())
    o(lambda: (g.GFile(u).read(), g.GFile(u).readline()))
    o(lambda: g.GFile(u).read(1))
    o(lambda: g.GFile(u, encoding="latin-1").read())
    return out


def test_gfile_file(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _files, (str(tmp_path),), helpers=[_outcome])


def _tree(tf, root):
    import os
    import pathlib
    import tempfile

    base = tempfile.mkdtemp(dir=root)
    g = tf.io.gfile
    out = []

    def o(fn):
        out.append(_outcome(tf, base, fn))

    d = os.path.join(base, "a", "b")
    f = os.path.join(base, "f")
    o(lambda: g.mkdir(d))
    o(lambda: (g.makedirs(d), g.makedirs(d), g.mkdir(d), g.isdir(d), g.exists(d)))
    with open(f, "w") as h:
        h.write("12345")
    o(lambda: (g.exists(f), g.exists(pathlib.Path(f)), g.exists(f.encode()), g.exists("")))
    o(lambda: (g.isdir(f), g.isdir(os.path.join(base, "none")), g.isdir("")))
    o(lambda: g.mkdir(f))
    o(lambda: g.makedirs(os.path.join(f, "x")))
    o(lambda: g.makedirs(f))
    o(lambda: g.listdir(os.path.join(base, "none")))
    o(lambda: g.listdir(f))
    o(lambda: sorted(g.listdir(base)))
    o(lambda: sorted(g.listdir(base + "/")))
    o(lambda: g.remove(os.path.join(base, "a")))
    o(lambda: g.remove(os.path.join(base, "none")))
    o(lambda: g.stat(os.path.join(base, "none")))
    s = g.stat(f)
    o(lambda: (s.length, s.is_directory, s.mtime_nsec % 1_000_000_000, g.stat(base).is_directory))
    o(lambda: g.copy(f, os.path.join(base, "g")))
    o(lambda: g.copy(f, os.path.join(base, "g")))
    o(lambda: g.copy(os.path.join(base, "none"), os.path.join(base, "h")))
    o(lambda: g.copy(f, os.path.join(base, "a"), overwrite=True))
    o(lambda: (g.copy(f, os.path.join(base, "g"), overwrite=True), g.GFile(f).read()))
    o(lambda: g.rename(f, os.path.join(base, "g")))
    o(lambda: (g.rename(f, os.path.join(base, "g"), overwrite=True), g.exists(f)))
    o(lambda: g.rename(os.path.join(base, "none"), os.path.join(base, "h")))
    os.makedirs(os.path.join(base, "x", "y"))
    os.makedirs(os.path.join(base, "x", "z"))
    for name in ("x/y/a.txt", "x/z/b.txt", "x/z/.h.txt", "x/z/c.csv"):
        open(os.path.join(base, name), "w").close()
    o(lambda: g.rename(os.path.join(base, "x", "y"), os.path.join(base, "x", "z")))
    o(lambda: g.rename(os.path.join(base, "x", "y"), os.path.join(base, "x", "z"), True))
    o(lambda: sorted(g.glob(os.path.join(base, "x", "*", "*.txt"))))
    o(lambda: sorted(g.glob(os.path.join(base, "x", "[yz]", "?.txt"))))
    o(lambda: sorted(g.glob(os.path.join(base, "x", "[!y]", "*"))))
    o(lambda: sorted(g.glob(os.path.join(base, "x", "*"))))
    o(lambda: g.glob(os.path.join(base, "none", "*")))
    o(lambda: g.glob(os.path.join(base, "x", "y")))
    o(lambda: g.glob(os.path.join(base, "x", "y") + "/"))
    o(lambda: g.glob(os.path.join(base, "x", "q")))
    o(lambda: g.glob(""))
    o(lambda: sorted(g.glob([os.path.join(base, "x", "y"), os.path.join(base, "x/z/*.csv")])))
    o(lambda: sorted(g.glob("file://" + os.path.join(base, "x", "*"))))
    o(lambda: sorted(g.listdir("file://" + os.path.join(base, "x"))))
    o(lambda: sorted((d, sorted(s), sorted(f)) for d, s, f in g.walk(os.path.join(base, "x"))))
    o(lambda: [d for d, _, _ in g.walk(os.path.join(base, "x"), topdown=False)][-1])
    o(lambda: list(g.walk(os.path.join(base, "none"))))
    o(lambda: list(g.walk(os.path.join(base, "none"), onerror=lambda e: None)))
    o(lambda: (g.rmtree(os.path.join(base, "x")), g.exists(os.path.join(base, "x"))))
    o(lambda: g.rmtree(os.path.join(base, "x")))
    o(lambda: (g.rmtree(os.path.join(base, "g")), g.exists(os.path.join(base, "g"))))
    o(lambda: (g.join("a", "b", "/c"), g.join("gs://a", "b"), g.join("a", "")))
    o(lambda: (g.exists("file://" + base), g.exists("file:/" + base), g.exists("file://x" + base)))
    for call in (
        lambda: g.exists("s3://x/y"),
        lambda: g.exists("File://" + base),
        lambda: g.GFile("s3://x/y").read(),
        lambda: g.isdir("s3://x/y"),
        lambda: g.listdir("s3://x/y"),
        lambda: g.glob("s3://x/*"),
        lambda: g.stat("s3://x/y"),
        lambda: g.makedirs("s3://x/y"),
        lambda: g.copy(os.path.join(base, "a"), "s3://x/y"),
    ):
        o(call)
    o(lambda: _outcome(tf, base, lambda: g.GFile(3, "rb").read())[0])  # not pybind11's text
    o(lambda: sorted(set(g.get_registered_schemes()) & {"", "file"}))
    return out


def test_gfile_tree(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _tree, (str(tmp_path),), helpers=[_outcome])
