"""tf.train's utilities against TensorFlow: TrackableView and CheckpointView over the same object
graph, and Coordinator's stop, join and exception reports."""

from .harness import assert_parity


def _views(tf, folder):
    class Model(tf.Module):
        def __init__(self):
            super().__init__()
            self.a = tf.Variable(1.0)
            self.sub = tf.Module()
            self.sub.b = tf.Variable(2.0)
            self.items = [tf.Variable(3.0), {"c": tf.Variable(4.0)}]

    def kinds(objects):
        out = []
        for o in objects:
            if isinstance(o, tf.Variable):
                out.append(("variable", float(o.numpy())))
            elif isinstance(o, tf.Module):
                out.append("module")
            else:
                out.append("container")
        return out

    model = Model()
    view = tf.train.TrackableView(model)
    out = [sorted(view.children(model)), kinds(view.descendants()), view.root is model]
    checkpoint = tf.train.Checkpoint(model=model)
    path = checkpoint.write(f"{folder}/{tf.__name__}/ckpt")
    stored = tf.train.CheckpointView(path)
    out += [stored.children(0), stored.children(1), stored.descendants()]
    matched = stored.match(checkpoint)
    out.append(sorted(matched))
    out.append(kinds([matched[k] for k in sorted(matched) if k > 0]))
    other = tf.train.Checkpoint(model=tf.Module())
    other.model.a = tf.Variable(5.0)
    other.model.extra = tf.Variable(6.0)
    found, only_stored, only_live = stored.diff(other)
    out += [sorted(found), only_stored, kinds(only_live)]
    return out


def test_trackable_and_checkpoint_views(tf_oracle, tmp_path):
    assert_parity(tf_oracle, _views, (str(tmp_path),))


def _coordinator(tf):
    import threading

    out = []
    coord = tf.train.Coordinator()
    steps = []

    def worker(n):
        with coord.stop_on_exception():
            while not coord.should_stop():
                steps.append(n)
                if len(steps) >= 5:
                    raise tf.errors.OutOfRangeError(None, None, "end of input")

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(3)]
    for t in threads:
        coord.register_thread(t)
        t.start()
    coord.join()
    out += [coord.should_stop(), coord.joined]

    coord = tf.train.Coordinator()

    def failing():
        with coord.stop_on_exception():
            raise ValueError("bad input")

    thread = threading.Thread(target=failing)
    thread.start()
    try:
        coord.join([thread])
    except ValueError as e:
        out.append(("ValueError", str(e)))
    try:
        coord.raise_requested_exception()
    except ValueError:
        out.append("still reported")
    coord.clear_stop()
    out += [coord.should_stop(), coord.wait_for_stop(0.01)]
    coord.request_stop()
    out.append(coord.wait_for_stop(0.01))
    coord.join([])
    try:
        coord.request_stop(RuntimeError("after join"))
    except Exception as e:  # TensorFlow re-raises the exception being handled: none here
        out.append(type(e).__name__)
    try:
        raise KeyError("handled")
    except KeyError:
        try:
            coord.request_stop(RuntimeError("after join"))
        except Exception as e:
            out.append(type(e).__name__)
    coord.request_stop(tf.errors.OutOfRangeError(None, None, "clean"))
    return out


def test_coordinator(tf_oracle):
    assert_parity(tf_oracle, _coordinator, ())
