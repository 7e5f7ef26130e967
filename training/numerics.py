"""Pinned CPU code paths: the same seed and config give the same model on every x86-64 machine.

Why a model differs between machines
------------------------------------
With the same seed, config and library versions, a run on one machine is bitwise repeatable,
but torch picks its arithmetic per CPU, and each choice changes the low bits of every update,
which training then amplifies into a different model (measured by
``scripts/reproducibility.py``, results in ``results/learned/reproducibility.md``):

* **ATen's CPU capability**: torch's own kernels (softmax, log-probabilities, the optimiser's
  element-wise updates) exist in DEFAULT, AVX2 and AVX512 variants, chosen at first use from
  the CPU (``torch.backends.cpu.get_cpu_capability()``; the ``ATEN_CPU_CAPABILITY`` variable);
* **MKL's code branch**: matrix products go to MKL, which picks a branch per processor, and a
  different one on AMD than on Intel processors with the same instructions (the ``MKL_CBWR``
  variable, Intel's "conditional numerical reproducibility");
* **the number of threads** (the config's ``torch_threads``, 1 by default), which changes the
  order of sums.

``numerics = "portable"`` (the default) pins the first two to AVX2 (``ATEN_CPU_CAPABILITY=avx2``,
``MKL_CBWR=AVX2``) before the run's first torch operation, so any x86-64 CPU with AVX2 (Intel or
AMD, since about 2013) follows the same paths; with ``torch_threads`` from the config, the same
seed gives the same model. Measured here it costs nothing: the pinned paths are the fast ones.
``numerics = "native"`` leaves torch's choices alone (the same model on the same machine only).

Limits: other library versions (torch, MKL inside it, NumPy, stable-baselines3) may change the
arithmetic; a CPU without AVX2, or another architecture (ARM), cannot follow the pinned paths and
portable mode refuses to run there. MKL reads ``MKL_CBWR`` at its first use in the process: a
process that multiplied matrices before calling ``train`` keeps MKL's own choice (set the
variables in the environment to be sure; ``guessgym train`` runs nothing before ``train``).
"""

from __future__ import annotations

import os
import platform
from importlib import metadata
from typing import Any

#: The modes of :func:`pin_numerics`.
NUMERICS = ("portable", "native")

#: The environment variables portable mode pins, and their values.
PORTABLE_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "MKL_CBWR": "AVX2"}

_LIBRARIES = ("torch", "stable-baselines3", "sb3-contrib", "numpy", "numba", "gymnasium")


def pin_numerics(mode: str) -> dict[str, Any]:
    """Apply ``mode`` (see the module docstring) to this process and describe what is in effect.

    Raises:
        ValueError: for an unknown mode; in portable mode, on a CPU without AVX2, or when torch
            already chose other kernels in this process (the message says what to do).
    """
    if mode not in NUMERICS:
        raise ValueError(f"numerics must be one of {NUMERICS}, got {mode!r}")
    if mode == "portable":
        os.environ.update(PORTABLE_ENV)
        import torch

        capability = torch.backends.cpu.get_cpu_capability()
        if capability != "AVX2":
            flags = _cpu_flags()
            if platform.machine().lower() not in ("x86_64", "amd64") or (flags and "avx2" not in flags):
                raise ValueError(f"numerics = 'portable' follows the AVX2 code paths of x86-64 CPUs; this machine "
                                 f"({platform.machine()}, {_cpu_name()}) has none. Use numerics = 'native' (the "
                                 "model will differ from one trained on another machine).")
            raise ValueError(f"torch already chose its {capability} kernels in this process before train() could pin "
                             "them to AVX2. Start Python with ATEN_CPU_CAPABILITY=avx2 MKL_CBWR=AVX2 in the "
                             "environment (guessgym train needs nothing: it runs no torch operation first), or "
                             "use numerics = 'native'.")
    return describe_numerics(mode)


def pin_threads(threads: int) -> None:
    """Run torch on ``threads`` threads, and numba's parallel kernels too.

    numba's OpenMP layer shares torch's OpenMP runtime: starting its thread pool (at the first
    parallel kernel: a word list's split, a pattern matrix built) sets the runtime's thread count
    to every core, and torch's matrix products then run on that many threads, which changes their
    sums with the machine. So the pool is started here first, then both are pinned.
    """
    import numba
    import torch
    from numba.np.ufunc import parallel

    parallel._launch_threads()  # what numba's first parallel kernel would do, later
    torch.set_num_threads(threads)
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]


def describe_numerics(mode: str) -> dict[str, Any]:
    """What decides the arithmetic of a run here: for ``final.json`` and the model cards."""
    import torch

    return {
        "numerics": mode,
        "aten_cpu_capability": torch.backends.cpu.get_cpu_capability(),
        "mkl_cbwr": os.environ.get("MKL_CBWR", "auto"),
        "torch_threads": torch.get_num_threads(),
        "machine": platform.machine(),
        "cpu": _cpu_name(),
        "python": platform.python_version(),
        "libraries": {name: _version(name) for name in _LIBRARIES},
    }


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


__all__ = ["NUMERICS", "PORTABLE_ENV", "describe_numerics", "pin_numerics", "pin_threads"]
