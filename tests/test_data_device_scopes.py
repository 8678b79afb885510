"""Datasets that place their elements on a device (`copy_to_device`, `prefetch_to_device`) must
not leave a device scope pushed on the consumer's thread: a generator suspended inside
`tf.device` kept it pushed, and when the garbage collector closed it later it popped whatever
scope was on top then, so ops asked for on the GPU ran on the CPU, silently."""

import gc

import ferroflow as tf
from ferroflow import device_scope


def test_a_partly_read_device_dataset_leaves_no_scope_behind():
    it = iter(tf.data.Dataset.range(5).apply(tf.data.experimental.copy_to_device("/cpu:0")))
    next(it)
    assert device_scope.active_scopes() == ()
    with tf.device("GPU:0"):
        del it
        gc.collect()
        assert device_scope.active_scopes() == ("GPU:0",)
        assert (tf.constant(1.0) + 1.0).device.endswith("GPU:0")
    assert device_scope.active_scopes() == ()
