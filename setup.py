"""An optional compiled build: with `BATAYO_COMPILE=1`, the modules that `[tool.batayo]` of
pyproject.toml lists are compiled with mypyc (the same source; mypy must be installed):

    pip install mypy setuptools && BATAYO_COMPILE=1 pip install --no-build-isolation .

Without it (the default, and every editable install) the project is pure Python. A compiled
install shadows nothing in the work tree: the compiled modules land in site-packages only.

A built wheel carries the contract: `openapi.yaml` (generated at the root, where the tests check
it) is copied into the `service` package, beside the viewer's `service/web/static`; and the
bots' measured strength, the ladder's results, into `service/ladder/`.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).parent


class BuildWithSpec(build_py):
    """build_py that also puts the root openapi.yaml into the built `service` package, and the
    ladder's results (`bench/results/ladder-*.json`, the bots' strength in GET /v1/rules) into
    `service/ladder/`."""

    def run(self) -> None:
        super().run()
        if not self.editable_mode:
            target = Path(self.build_lib) / "service" / "openapi.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            self.copy_file(str(ROOT / "openapi.yaml"), str(target))
            ladder = Path(self.build_lib) / "service" / "ladder"
            ladder.mkdir(exist_ok=True)
            for result in sorted((ROOT / "bench" / "results").glob("ladder-*.json")):
                self.copy_file(str(result), str(ladder / result.name))


def compiled_modules() -> list:
    if os.environ.get("BATAYO_COMPILE") != "1":
        return []
    from mypyc.build import mypycify

    with open(Path(__file__).parent / "pyproject.toml", "rb") as f:
        modules = tomllib.load(f)["tool"]["batayo"]["compiled"]
    # only these modules must type-check: the ones they import stay Python
    return mypycify(["--follow-imports=silent", *modules], opt_level="3")


setup(ext_modules=compiled_modules(), cmdclass={"build_py": BuildWithSpec})
