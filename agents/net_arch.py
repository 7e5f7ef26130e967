"""The hidden layers a policy may be built with: bounded before anything is allocated.

A config's ``net_arch`` and a model file's ``policy_kwargs`` come from anyone; a layer of a billion
units asked the allocator for terabytes before anything said no, and two layers of 65,536 units
(each within the width bound) are 4.3 billion weights, 17 GB of float32, which ended a run in a
traceback. :func:`check_layer_sizes` bounds the widths, the depth and the weights between hidden
layers together (the input and output layers are as wide as the game's features and actions,
which the game bounds).
"""

from __future__ import annotations

from typing import Any

#: The widest hidden layer and the most hidden layers a policy may have.
MAX_LAYER_UNITS, MAX_LAYERS = 65_536, 32
#: The most weights and biases the hidden layers of one network (actor or critic) may hold: 128 MiB
#: of float32, four times that with gradients and the optimiser's two moments.
MAX_HIDDEN_PARAMETERS = 1 << 25


def hidden_parameters(sizes: list[int]) -> int:
    """The weights between consecutive hidden layers of ``sizes`` and their biases."""
    return sum(a * b for a, b in zip(sizes, sizes[1:])) + sum(sizes)


def check_layer_sizes(sizes: Any, name: str) -> list[int]:
    """``sizes`` if it is a list of at most :data:`MAX_LAYERS` whole widths from 1 to
    :data:`MAX_LAYER_UNITS` holding at most :data:`MAX_HIDDEN_PARAMETERS` hidden parameters.

    Raises:
        ValueError: naming ``name``, what it holds and what is allowed.
    """
    if not isinstance(sizes, list) or len(sizes) > MAX_LAYERS or not all(
            type(n) is int and 1 <= n <= MAX_LAYER_UNITS for n in sizes):
        raise ValueError(f"{name} must be a list of at most {MAX_LAYERS} layer sizes, each a whole number from 1 to "
                         f"{MAX_LAYER_UNITS:,}; got {str(sizes)[:80]}")
    held = hidden_parameters(sizes)
    if held > MAX_HIDDEN_PARAMETERS:
        raise ValueError(f"{name}={str(sizes)[:80]} holds {held:,} weights between its hidden layers, over the "
                         f"{MAX_HIDDEN_PARAMETERS:,} a policy may have (about {MAX_HIDDEN_PARAMETERS * 16 >> 30} GiB "
                         "to train); use fewer or narrower layers")
    return list(sizes)


__all__ = ["MAX_HIDDEN_PARAMETERS", "MAX_LAYERS", "MAX_LAYER_UNITS", "check_layer_sizes", "hidden_parameters"]
