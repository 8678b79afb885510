"""`tf.keras.layers.Cropping1D/2D/3D`: rows removed before and after each spatial axis, with
Keras 3's argument forms (an int, one int per axis, or a (before, after) pair per axis) and
errors; 2-D and 3-D in either data format."""

from ferroflow.keras.layers._spatial_pairs import SpatialPairsLayer

__all__ = ["Cropping1D", "Cropping2D", "Cropping3D"]


class _Cropping(SpatialPairsLayer):
    argument = "cropping"

    def _check(self, shape, what):
        start = self._first_spatial()
        for i, pair in enumerate(self._pairs):
            size = shape[start + i]
            if size is not None and sum(pair) >= size:
                if self.rank == 1:
                    raise ValueError(
                        "`cropping` parameter of `Cropping1D` layer must be smaller than the "
                        f"input length. Received: {what}={shape}, cropping={self.cropping}"
                    )
                raise ValueError(
                    "Values in `cropping` argument should be smaller than the corresponding "
                    f"spatial dimension of the input. Received: {what}={shape}, "
                    f"cropping={self.cropping}"
                )

    def call(self, inputs):
        self._check(tuple(inputs.shape), "inputs.shape")
        index = [slice(None)] * (self.rank + 2)
        start = self._first_spatial()
        for i, (before, after) in enumerate(self._pairs):
            index[start + i] = slice(before, -after if after else None)
        return inputs[tuple(index)]

    def compute_output_shape(self, input_shape):
        self._check(tuple(input_shape), "input_shape")
        return self._resized(input_shape, -1)

    def get_config(self):
        config = super().get_config()
        if self.rank == 1:
            del config["data_format"]  # Cropping1D has none
        return config


class Cropping1D(_Cropping):
    """Crops axis 1 of ``[batch, steps, channels]`` (``cropping`` an int or a pair)."""

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)


class Cropping2D(_Cropping):
    """Crops the rows and columns of 4-D images."""

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Crops the three spatial axes of 5-D volumes."""

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)
