"""`tf.image`: geometry, colour, resizing, quality measures and random augmentations, composed
from ferroflow's ops (gathers, slices, einsum, convolutions, the stateless random ops)."""

from ferroflow.nn_windows import extract_patches

from .color import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    grayscale_to_rgb,
    hsv_to_rgb,
    per_image_standardization,
    rgb_to_grayscale,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    yiq_to_rgb,
    yuv_to_rgb,
)
from .convert import convert_image_dtype
from .geometry import (
    central_crop,
    crop_to_bounding_box,
    flip_left_right,
    flip_up_down,
    pad_to_bounding_box,
    resize_with_crop_or_pad,
    rot90,
    transpose,
)
from .quality import image_gradients, psnr, sobel_edges, ssim, ssim_multiscale, total_variation
from .resize import ResizeMethod, resize, resize_with_pad

__all__ = [
    "ResizeMethod",
    "adjust_brightness",
    "adjust_contrast",
    "adjust_gamma",
    "adjust_hue",
    "adjust_saturation",
    "central_crop",
    "convert_image_dtype",
    "crop_to_bounding_box",
    "extract_patches",
    "flip_left_right",
    "flip_up_down",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "image_gradients",
    "pad_to_bounding_box",
    "per_image_standardization",
    "psnr",
    "resize",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "rot90",
    "sobel_edges",
    "ssim",
    "ssim_multiscale",
    "total_variation",
    "transpose",
    "yiq_to_rgb",
    "yuv_to_rgb",
]
