"""`tf.image`: geometry, colour, resizing, quality measures and random augmentations, composed
from ferroflow's ops (gathers, slices, einsum, convolutions, the stateless random ops)."""

from ferroflow.nn_windows import extract_patches

from . import codecs as _codecs
from .boxes import crop_and_resize, draw_bounding_boxes
from .codecs import *  # noqa: F403 - the codecs' __all__ is tf.image's too
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
from .distorted_box import sample_distorted_bounding_box, stateless_sample_distorted_bounding_box
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
from .glimpse import extract_glimpse
from .nms import (
    combined_non_max_suppression,
    generate_bounding_box_proposals,
    non_max_suppression,
    non_max_suppression_padded,
    non_max_suppression_with_scores,
)
from .nms import non_max_suppression_with_overlaps as non_max_suppression_overlaps
from .quality import image_gradients, psnr, sobel_edges, ssim, ssim_multiscale, total_variation
from .random_ops import (
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    random_hue,
    random_saturation,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_crop,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    stateless_random_hue,
    stateless_random_saturation,
)
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
    "combined_non_max_suppression",
    "crop_and_resize",
    "crop_to_bounding_box",
    "draw_bounding_boxes",
    "extract_glimpse",
    "extract_patches",
    "flip_left_right",
    "flip_up_down",
    "generate_bounding_box_proposals",
    "grayscale_to_rgb",
    "hsv_to_rgb",
    "image_gradients",
    "non_max_suppression",
    "non_max_suppression_overlaps",
    "non_max_suppression_padded",
    "non_max_suppression_with_scores",
    "pad_to_bounding_box",
    "per_image_standardization",
    "psnr",
    "random_brightness",
    "random_contrast",
    "random_crop",
    "random_flip_left_right",
    "random_flip_up_down",
    "random_hue",
    "random_saturation",
    "resize",
    "resize_with_crop_or_pad",
    "resize_with_pad",
    "rgb_to_grayscale",
    "rgb_to_hsv",
    "rgb_to_yiq",
    "rgb_to_yuv",
    "rot90",
    "sample_distorted_bounding_box",
    "sobel_edges",
    "ssim",
    "ssim_multiscale",
    "stateless_random_brightness",
    "stateless_random_contrast",
    "stateless_random_crop",
    "stateless_random_flip_left_right",
    "stateless_random_flip_up_down",
    "stateless_random_hue",
    "stateless_random_saturation",
    "stateless_sample_distorted_bounding_box",
    "total_variation",
    "transpose",
    "yiq_to_rgb",
    "yuv_to_rgb",
] + _codecs.__all__
