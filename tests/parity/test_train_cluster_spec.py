"""`tf.train.ClusterSpec` against TensorFlow: accessors, errors and its ClusterDef message."""

from .harness import assert_parity


def _cluster(tf):
    def attempt(f):
        try:
            return f()
        except Exception as e:
            return type(e).__name__

    spec = tf.train.ClusterSpec({"worker": ["a:1", "b:2"], "ps": {1: "c:3"}})
    out = [spec.jobs, spec.as_dict(), spec.num_tasks("ps"), spec.task_indices("ps")]
    out += [spec.job_tasks("ps"), spec.task_address("worker", 1), repr(spec), bool(spec)]
    out += [attempt(lambda: spec.num_tasks("chief")), attempt(lambda: spec.task_address("ps", 0))]
    out += [spec == tf.train.ClusterSpec(spec), bool(tf.train.ClusterSpec({}))]
    out.append(attempt(lambda: tf.train.ClusterSpec(["a"])))
    out.append(attempt(lambda: tf.train.ClusterSpec({"w": "abc"})))
    cluster_def = spec.as_cluster_def()
    out += [str(cluster_def), cluster_def.SerializeToString(deterministic=True)]
    out.append(repr(tf.train.ClusterSpec(cluster_def)))
    job = tf.train.JobDef(name="chief", tasks={0: "d:4"})
    out.append(repr(tf.train.ClusterSpec(tf.train.ClusterDef(job=[job]))))
    return out


def test_cluster_spec(tf_oracle):
    assert_parity(tf_oracle, _cluster, ())
