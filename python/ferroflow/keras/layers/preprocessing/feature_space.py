"""`tf.keras.utils.FeatureSpace`: Keras 3's one-stop preprocessing of structured data. Each
named feature gets a preprocessing layer (Normalization, Discretization, the lookups,
Hashing, Rescaling or an identity), crosses go through `HashedCrossing`, categorical outputs
are one-hot (multi-hot) encoded, and the results are concatenated or returned as a dict.
`adapt` fits the layers on a dataset of dicts; the encoded features are also built once on
`keras.Input`s, as Keras does, for functional models."""

from ferroflow.keras import layers
from ferroflow.keras._naming import auto_name
from ferroflow.keras.layers.layer import Layer
from ferroflow.keras.saving import model_config, serialization_lib

__all__ = ["Cross", "Feature", "FeatureSpace", "TFDConcat", "TFDIdentity"]


class Cross:
    """A crossing of ``feature_names`` hashed into ``crossing_dim`` bins."""

    def __init__(self, feature_names, crossing_dim, output_mode="one_hot"):
        if output_mode not in {"int", "one_hot"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of {'int', 'one_hot'}. "
                f"Received: output_mode={output_mode}"
            )
        self.feature_names = tuple(feature_names)
        self.crossing_dim = crossing_dim
        self.output_mode = output_mode

    @property
    def name(self):
        return "_X_".join(self.feature_names)

    def get_config(self):
        return {
            "feature_names": self.feature_names,
            "crossing_dim": self.crossing_dim,
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Feature:
    """One input feature: its input ``dtype``, its ``preprocessor`` layer and how the
    preprocessed value is output ("int", "one_hot" or "float")."""

    def __init__(self, dtype, preprocessor, output_mode):
        if output_mode not in {"int", "one_hot", "float"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of "
                f"{{'int', 'one_hot', 'float'}}. Received: output_mode={output_mode}"
            )
        self.dtype = dtype
        if isinstance(preprocessor, dict):
            preprocessor = serialization_lib.deserialize_keras_object(preprocessor)
        self.preprocessor = preprocessor
        self.output_mode = output_mode

    def get_config(self):
        return {
            "dtype": self.dtype,
            "preprocessor": serialization_lib.serialize_keras_object(self.preprocessor),
            "output_mode": self.output_mode,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _data_layer_config(layer):
    """Keras's ``DataLayer`` config: name, dtype policy and trainable only."""
    config = Layer.get_config(layer)
    return {key: config[key] for key in ("name", "dtype", "trainable")}


class TFDIdentity(Layer):
    """The preprocessor of plain float features (Keras's class name, for configs)."""

    def call(self, x):
        return x

    def get_config(self):
        return _data_layer_config(self)


class TFDConcat(Layer):
    """The concatenation of the encoded features (Keras's class name, for configs)."""

    def __init__(self, axis, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, xs):
        import ferroflow as tf

        return tf.concat(list(xs), axis=self.axis)

    def get_config(self):
        return _data_layer_config(self)


def _cardinality(name, preprocessor):
    """The size of the one-hot space of a categorical preprocessor's outputs."""
    if isinstance(preprocessor, layers.IntegerLookup | layers.StringLookup):
        return preprocessor.vocabulary_size()
    if isinstance(preprocessor, layers.CategoryEncoding):
        return preprocessor.num_tokens
    if isinstance(preprocessor, layers.Discretization | layers.HashedCrossing | layers.Hashing):
        return preprocessor.num_bins
    raise ValueError(
        f"Feature '{name}' has `output_mode='one_hot'`. However it isn't a standard feature "
        "and the dimensionality of its output space is not known, thus it cannot be one-hot "
        "encoded. Try using `output_mode='int'`."
    )


def _dtype_name(x):
    from ferroflow.keras.utils.general_utils import standardize_dtype

    return standardize_dtype(x.dtype)


def _feature(kind, name, input_dtype, output_mode, layer_class, **layer_kwargs):
    """A `Feature` of ``input_dtype`` whose preprocessor ``layer_class(**layer_kwargs)`` is
    named ``<name>_preprocessor`` (``name`` defaults to a unique ``kind`` name)."""
    name = name or auto_name(kind)
    preprocessor = layer_class(name=f"{name}_preprocessor", **layer_kwargs)
    return Feature(dtype=input_dtype, preprocessor=preprocessor, output_mode=output_mode)


class FeatureSpace(Layer):
    """Preprocesses a dict of features (see the class methods for the feature types);
    ``output_mode`` "concat" gives one float tensor, "dict" the encoded features by name."""

    @classmethod
    def cross(cls, feature_names, crossing_dim, output_mode="one_hot"):
        return Cross(feature_names, crossing_dim, output_mode=output_mode)

    @classmethod
    def feature(cls, dtype, preprocessor, output_mode):
        return Feature(dtype, preprocessor, output_mode)

    @classmethod
    def float(cls, name=None):
        return _feature("float", name, "float32", "float", TFDIdentity, dtype="float32")

    @classmethod
    def float_rescaled(cls, scale=1.0, offset=0.0, name=None):
        return _feature(
            "float_rescaled", name, "float32", "float", layers.Rescaling, scale=scale, offset=offset
        )

    @classmethod
    def float_normalized(cls, name=None):
        return _feature("float_normalized", name, "float32", "float", layers.Normalization, axis=-1)

    @classmethod
    def float_discretized(cls, num_bins, bin_boundaries=None, output_mode="one_hot", name=None):
        return _feature(
            "float_discretized",
            name,
            "float32",
            output_mode,
            layers.Discretization,
            num_bins=num_bins,
            bin_boundaries=bin_boundaries,
        )

    @classmethod
    def integer_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ):
        return _feature(
            "integer_categorical",
            name,
            "int32",
            output_mode,
            layers.IntegerLookup,
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
        )

    @classmethod
    def string_categorical(
        cls, max_tokens=None, num_oov_indices=1, output_mode="one_hot", name=None
    ):
        return _feature(
            "string_categorical",
            name,
            "string",
            output_mode,
            layers.StringLookup,
            max_tokens=max_tokens,
            num_oov_indices=num_oov_indices,
        )

    @classmethod
    def string_hashed(cls, num_bins, output_mode="one_hot", name=None):
        return _feature(
            "string_hashed", name, "string", output_mode, layers.Hashing, num_bins=num_bins
        )

    @classmethod
    def integer_hashed(cls, num_bins, output_mode="one_hot", name=None):
        return _feature(
            "integer_hashed", name, "int32", output_mode, layers.Hashing, num_bins=num_bins
        )

    def __init__(
        self,
        features,
        output_mode="concat",
        crosses=None,
        crossing_dim=32,
        hashing_dim=32,
        num_discretization_bins=32,
        name=None,
    ):
        super().__init__(name=name)
        if not features:
            raise ValueError("The `features` argument cannot be None or empty.")
        self.crossing_dim = crossing_dim
        self.hashing_dim = hashing_dim
        self.num_discretization_bins = num_discretization_bins
        self.features = {
            key: self._standardize_feature(key, value) for key, value in features.items()
        }
        self.crosses = [self._standardize_cross(cross, set(features)) for cross in crosses or []]
        self.crosses_by_name = {cross.name: cross for cross in self.crosses}
        if output_mode not in {"dict", "concat"}:
            raise ValueError(
                "Invalid value for argument `output_mode`. Expected one of {'dict', 'concat'}. "
                f"Received: output_mode={output_mode}"
            )
        self.output_mode = output_mode
        self.inputs = {
            key: layers.Input(shape=(1,), dtype=value.dtype, name=key)
            for key, value in self.features.items()
        }
        self.preprocessors = {key: value.preprocessor for key, value in self.features.items()}
        self.encoded_features = None
        self.crossers = {
            cross.name: layers.HashedCrossing(cross.crossing_dim, name=cross.name)
            for cross in self.crosses
        }
        self.one_hot_encoders = {}
        self._is_adapted = False
        self.concat = None
        self._preprocessed_features_names = None
        self._crossed_features_names = None
        self._sublayers_built = False

    def _standardize_cross(self, cross, feature_set):
        if isinstance(cross, dict):
            cross = serialization_lib.deserialize_keras_object(cross)
        if isinstance(cross, Cross):
            return cross
        if not self.crossing_dim:
            raise ValueError(
                "When specifying `crosses`, the argument `crossing_dim` (dimensionality of the "
                "crossing space) should be specified as well."
            )
        for key in cross:
            if key not in feature_set:
                raise ValueError(
                    "All features referenced in the `crosses` argument should be present in "
                    f"the `features` dict. Received unknown features: {cross}"
                )
        return Cross(cross, crossing_dim=self.crossing_dim)

    def _standardize_feature(self, name, feature):
        if isinstance(feature, Feature):
            return feature
        if isinstance(feature, dict):
            return serialization_lib.deserialize_keras_object(feature)
        makers = {
            "float": lambda: self.float(name=name),
            "float_normalized": lambda: self.float_normalized(name=name),
            "float_rescaled": lambda: self.float_rescaled(name=name),
            "float_discretized": lambda: self.float_discretized(
                name=name, num_bins=self.num_discretization_bins
            ),
            "integer_categorical": lambda: self.integer_categorical(name=name),
            "string_categorical": lambda: self.string_categorical(name=name),
            "integer_hashed": lambda: self.integer_hashed(self.hashing_dim, name=name),
            "string_hashed": lambda: self.string_hashed(self.hashing_dim, name=name),
        }
        if not isinstance(feature, str) or feature not in makers:
            raise ValueError(f"Invalid feature type: {feature}")
        return makers[feature]()

    def _list_adaptable_preprocessors(self):
        names = []
        for name in self.features:
            preprocessor = self.preprocessors[name]
            if isinstance(preprocessor, layers.Normalization):
                if preprocessor.input_mean is not None:
                    continue
            elif isinstance(preprocessor, layers.TextVectorization):
                if preprocessor._has_input_vocabulary:
                    continue
            if hasattr(preprocessor, "adapt"):
                names.append(name)
        return names

    def adapt(self, dataset):
        """Fits the adaptable preprocessors on ``dataset`` (a `tf.data.Dataset` of dicts, or
        a dict of arrays), one feature at a time, batched by 32 when unbatched."""
        import ferroflow as tf

        if not isinstance(dataset, tf.data.Dataset):
            if not isinstance(dataset, dict):
                raise ValueError(
                    "`adapt()` can only be called on a tf.data.Dataset or a dict of "
                    f"arrays/lists. Received instead: {dataset} (of type {type(dataset)})"
                )
            dataset = tf.data.Dataset.from_tensor_slices(dataset)
        for name in self._list_adaptable_preprocessors():
            feature_dataset = dataset.map(lambda x, name=name: x[name])
            rank = len(next(iter(feature_dataset)).shape)
            if rank == 0:
                feature_dataset = feature_dataset.batch(32)
            if rank in (0, 1):
                feature_dataset = feature_dataset.map(lambda x: tf.expand_dims(x, -1))
            self.preprocessors[name].adapt(feature_dataset)
        self._is_adapted = True
        self.get_encoded_features()
        self.built = True
        self._sublayers_built = True

    def get_inputs(self):
        """The `keras.Input` of each feature, by name."""
        self._check_if_built()
        return self.inputs

    def get_encoded_features(self):
        """The encoded features (concatenated, or a dict) computed from `get_inputs()`."""
        self._check_if_adapted()
        if self.encoded_features is None:
            preprocessed = self._preprocess_features(self.inputs)
            crossed = self._cross_features(preprocessed)
            self.encoded_features = self._merge_features(preprocessed, crossed)
        return self.encoded_features

    def _preprocess_features(self, features):
        return {name: self.preprocessors[name](features[name]) for name in features}

    def _cross_features(self, features):
        return {
            cross.name: self.crossers[cross.name]([features[n] for n in cross.feature_names])
            for cross in self.crosses
        }

    def _merge_features(self, preprocessed, crossed):
        if not self._preprocessed_features_names:
            self._preprocessed_features_names = sorted(preprocessed)
            self._crossed_features_names = sorted(crossed)
        names = self._preprocessed_features_names + self._crossed_features_names
        values = [preprocessed[n] for n in self._preprocessed_features_names] + [
            crossed[n] for n in self._crossed_features_names
        ]
        if self._sublayers_built:
            encoded = {}
            for name, value in zip(names, values, strict=True):
                encoder = self.one_hot_encoders.get(name)
                encoded[name] = encoder(value) if encoder else value
            if self.output_mode == "dict":
                return encoded
            return self.concat(list(encoded.values()))
        return self._first_merge(names, values)

    def _first_merge(self, names, values):
        """The first merge (on the symbolic inputs) makes the one-hot encoders and checks
        that what is concatenated is encoded."""
        specs = [self.features[n] for n in self._preprocessed_features_names] + [
            self.crosses_by_name[n] for n in self._crossed_features_names
        ]
        encoded = {}
        for name, value, spec in zip(names, values, specs, strict=True):
            dtype = _dtype_name(value)
            if spec.output_mode == "one_hot":
                if not dtype.startswith("int"):
                    raise ValueError(
                        f"Feature '{name}' has `output_mode='one_hot'`. Thus its preprocessor "
                        f"should return an integer dtype. Instead it returns a {dtype} dtype."
                    )
                preprocessor = self.preprocessors.get(name) or self.crossers.get(name)
                encoder = layers.CategoryEncoding(
                    num_tokens=_cardinality(name, preprocessor), output_mode="multi_hot"
                )
                self.one_hot_encoders[name] = encoder
                value = encoder(value)
            if self.output_mode == "concat":
                dtype = _dtype_name(value)
                if dtype.startswith("int") or dtype == "string":
                    raise ValueError(
                        f"Cannot concatenate features because feature '{name}' has not been "
                        f"encoded (it has dtype {dtype}). Consider using `output_mode='dict'`."
                    )
            encoded[name] = value
        if self.output_mode == "dict":
            return encoded
        self.concat = TFDConcat(axis=-1)
        return self.concat(list(encoded.values()))

    def _check_if_adapted(self):
        if not self._is_adapted:
            if self._list_adaptable_preprocessors():
                raise ValueError(
                    "You need to call `.adapt(dataset)` on the FeatureSpace before you can "
                    "start using it."
                )
            self._is_adapted = True

    def _check_if_built(self):
        if not self._sublayers_built:
            self._check_if_adapted()
            self.get_encoded_features()
            self._sublayers_built = True

    def __call__(self, data):
        """The encoded features of ``data`` (a dict of batches, or of scalars for one
        example)."""
        import ferroflow as tf

        self._check_if_built()
        if not isinstance(data, dict):
            raise ValueError(
                f"A FeatureSpace can only be called with a dict. Received: data={data} (of "
                f"type {type(data)}"
            )
        data = {key: tf.convert_to_tensor(value) for key, value in data.items()}
        rebatched = False
        for name, x in data.items():
            if x.shape.rank == 0:
                data[name] = tf.reshape(x, (1, 1))
                rebatched = True
            elif x.shape.rank == 1:
                data[name] = tf.expand_dims(x, -1)
        preprocessed = self._preprocess_features(data)
        merged = self._merge_features(preprocessed, self._cross_features(preprocessed))
        if not rebatched:
            return merged
        if self.output_mode == "concat":
            if merged.shape[0] != 1:
                raise ValueError(
                    f"Expected rebatched data to have batch size 1. Received: shape={merged.shape}"
                )
            return tf.squeeze(merged, axis=0)
        for name, x in merged.items():
            if x.shape.rank == 2 and x.shape[0] == 1:
                merged[name] = tf.squeeze(x, axis=0)
        return merged

    def get_config(self):
        return {
            "features": serialization_lib.serialize_keras_object(self.features),
            "output_mode": self.output_mode,
            "crosses": serialization_lib.serialize_keras_object(self.crosses),
            "crossing_dim": self.crossing_dim,
            "hashing_dim": self.hashing_dim,
            "num_discretization_bins": self.num_discretization_bins,
        }

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def get_build_config(self):
        return {
            name: model_config.get_build_config(feature.preprocessor)
            for name, feature in self.features.items()
        }

    def build_from_config(self, config):
        for name, build_config in config.items():
            preprocessor = self.features[name].preprocessor
            if not preprocessor.built and build_config is not None:
                model_config.build_from_config(preprocessor, build_config)
        self._is_adapted = True

    def save(self, filepath):
        """Writes the FeatureSpace (config and adapted state) as a ``.keras`` archive."""
        from ferroflow.keras.saving import keras_archive

        keras_archive.save_model(self, filepath)

    def save_own_variables(self, store):
        return

    def load_own_variables(self, store):
        return
