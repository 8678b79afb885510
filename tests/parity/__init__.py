"""Differential tests against TensorFlow (see harness.py)."""
