"""The constructor checks of Keras 3's base optimizer: unknown keyword arguments, the
deprecated ``decay``, and the ranges and combinations of the clipping, EMA and accumulation
options (all ValueError, with Keras's messages)."""

import warnings

__all__ = ["check_arguments", "check_kwargs"]


def check_kwargs(kwargs):
    if kwargs.pop("decay", None) is not None:
        warnings.warn("Argument `decay` is no longer supported and will be ignored.", stacklevel=4)
    if kwargs:
        raise ValueError(f"Argument(s) not recognized: {kwargs}")


def check_arguments(accumulation_steps, use_ema, ema_momentum, overwrite_frequency, clips):
    if accumulation_steps and not accumulation_steps >= 2:
        raise ValueError(
            "`gradient_accumulation_steps` must be an integer >= 2. "
            f"Received: gradient_accumulation_steps={accumulation_steps}"
        )
    if use_ema:
        if ema_momentum > 1 or ema_momentum < 0:
            raise ValueError(
                f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={ema_momentum}"
            )
        if overwrite_frequency and (
            not isinstance(overwrite_frequency, int) or overwrite_frequency < 1
        ):
            raise ValueError(
                "`ema_overwrite_frequency` must be an integer >= 1 or None. "
                f"Received: ema_overwrite_frequency={overwrite_frequency}"
            )
    clipnorm, clipvalue, global_clipnorm = clips
    if sum(c is not None for c in clips) > 1:
        raise ValueError(
            "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can "
            f"be set. Received: clipnorm={clipnorm}, "
            f"clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
        )
