"""`keras.ops` (Keras 3 as shipped with TensorFlow 2.21) over ferroflow's ops: the NumPy-style
ops (`numpy.py`), neural-network ops (`nn.py`), math (`math.py`), linear algebra (`linalg.py`),
core ops and control flow (`core.py`), `rearrange` (`einops.py`) and the `image` namespace.
Dtype results follow Keras's promotion rules (`_dtypes.py`), not TensorFlow's. Called on
`KerasTensor`s, the ops record nodes of a functional model (`_symbolic_ops.py`)."""

from ferroflow.keras.ops import core, einops, image, linalg, nn, numpy
from ferroflow.keras.ops import math as _math
from ferroflow.keras.ops._symbolic_ops import wrap_module

for _module, _keras_module in (
    (core, "keras.src.ops.core"),
    (numpy, "keras.src.ops.numpy"),
    (nn, "keras.src.ops.nn"),
    (_math, "keras.src.ops.math"),
    (linalg, "keras.src.ops.linalg"),
    (image, "keras.src.ops.image"),
    (einops, "keras.src.ops.einops"),
):
    wrap_module(_module, _keras_module)

from ferroflow.keras.ops.core import *  # noqa: E402, F403
from ferroflow.keras.ops.einops import rearrange  # noqa: E402, F401
from ferroflow.keras.ops.linalg import *  # noqa: E402, F403
from ferroflow.keras.ops.math import *  # noqa: E402, F403
from ferroflow.keras.ops.nn import *  # noqa: E402, F403
from ferroflow.keras.ops.numpy import *  # noqa: E402, F403

__all__ = sorted(
    {
        *core.__all__,
        *linalg.__all__,
        *_math.__all__,
        *nn.__all__,
        *numpy.__all__,
        "image",
        "linalg",
        "nn",
        "numpy",
        "rearrange",
    }
)
