"""The optional C search loop (nothanks_tui/bots/_search_c.c). Everything else about the package is in
pyproject.toml. ``optional=True``: on a machine without a C compiler (or Python's headers) the build only warns
and the bots play the very same moves in pure Python, slower (nothanks_tui/bots/ismcts.py)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "nothanks_tui.bots._search_c",
            ["nothanks_tui/bots/_search_c.c"],
            optional=True,
            # No fused multiply-add: the reward sums and UCB values must round exactly as Python's floats do.
            extra_compile_args=["-O2", "-ffp-contract=off"],
        )
    ]
)
