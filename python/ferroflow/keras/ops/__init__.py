"""`keras.ops` (Keras 3 as shipped with TensorFlow 2.21) over ferroflow's ops: the NumPy-style
ops (`numpy.py`), neural-network ops (`nn.py`), math (`math.py`), linear algebra (`linalg.py`),
core ops and control flow (`core.py`), `rearrange` (`einops.py`) and the `image` namespace.
Dtype results follow Keras's promotion rules (`_dtypes.py`), not TensorFlow's."""

from ferroflow.keras.ops import core, image, linalg, nn, numpy  # noqa: F401
from ferroflow.keras.ops import math as _math
from ferroflow.keras.ops.core import *  # noqa: F403
from ferroflow.keras.ops.einops import rearrange  # noqa: F401
from ferroflow.keras.ops.linalg import *  # noqa: F403
from ferroflow.keras.ops.math import *  # noqa: F403
from ferroflow.keras.ops.nn import *  # noqa: F403
from ferroflow.keras.ops.numpy import *  # noqa: F403

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
