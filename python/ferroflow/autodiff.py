"""`tf.autodiff`: forward-mode (`ForwardAccumulator`) and reverse-mode (`GradientTape`)
automatic differentiation."""

from ferroflow.backprop import GradientTape
from ferroflow.forwardprop import ForwardAccumulator

__all__ = ["ForwardAccumulator", "GradientTape"]
