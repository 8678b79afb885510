"""Traced graphs name composite ops as TensorFlow's do (`Relu`, `MaxPool`, `Conv2D`, ...), and a
traced cross-entropy checks its labels on every call, not only while tracing."""

from .harness import parity


@parity
def test_composites_are_named_nodes(tf):
    NAMED = [
        "Relu",
        "Relu6",
        "Elu",
        "Selu",
        "Softplus",
        "LeakyRelu",
        "MaxPool",
        "AvgPool",
        "Conv2D",
        "BiasAdd",
        "Softmax",
        "LogSoftmax",
        "SparseSoftmaxCrossEntropyWithLogits",
        "SoftmaxCrossEntropyWithLogits",
    ]

    @tf.function
    def model(images, labels, probabilities):
        x = tf.nn.conv2d(images, tf.ones([3, 3, 1, 2]), 1, "SAME")
        x = tf.nn.bias_add(x, tf.constant([0.5, -0.5]))
        x = tf.nn.max_pool2d(tf.nn.relu(x), 2, 2, "VALID")
        x = tf.nn.avg_pool2d(tf.nn.relu6(x), 2, 2, "VALID")
        flat = tf.reshape(x, [-1, 2])
        acts = [tf.nn.elu(flat), tf.nn.selu(flat), tf.nn.softplus(flat), tf.nn.leaky_relu(flat)]
        logits = tf.add_n(acts)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
        dense = tf.nn.softmax_cross_entropy_with_logits(labels=probabilities, logits=logits)
        return sparse, dense, tf.nn.softmax(logits), tf.nn.log_softmax(logits)

    images = tf.reshape(tf.range(32, dtype=tf.float32) / 10.0, [2, 4, 4, 1])
    labels = tf.constant([1, 0])
    probabilities = tf.constant([[0.25, 0.75], [1.0, 0.0]])
    graph = model.get_concrete_function(images, labels, probabilities).graph
    types = {op.type for op in graph.get_operations()}
    return {name: name in types for name in NAMED}, model(images, labels, probabilities)


@parity
def test_traced_sparse_labels_are_checked_on_every_call(tf):
    @tf.function
    def loss(labels, logits):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)

    logits = tf.constant([[1.0, 2.0, 0.5]])
    good = loss(tf.constant([2]), logits)
    try:
        loss(tf.constant([3]), logits)
        bad = "no error"
    except tf.errors.InvalidArgumentError:
        bad = "InvalidArgumentError"
    return good, bad
