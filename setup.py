"""Maps the top-level folders to `dicecall.*` subpackages (DESIGN.md, Layout).

pyproject.toml cannot list a folder tree under a mapped name without naming every
subpackage by hand, so the walk lives here and new subpackages need no edit.
"""

import os

from setuptools import setup

ROOTS = {
    "dicecall": "dicecall",
    "dicecall.vision": "vision",
    "dicecall.models": "models",
    "dicecall.edge": "edge",
    "dicecall.api": "api",
    "dicecall.datasets": "datasets",
    "dicecall.calibration": "calibration",
}


def _packages() -> tuple[list[str], dict[str, str]]:
    packages, package_dir = [], {}
    for name, folder in ROOTS.items():
        for dirpath, _dirs, files in os.walk(folder):
            if "__init__.py" not in files:
                continue
            rel = os.path.relpath(dirpath, folder)
            pkg = name if rel == "." else name + "." + rel.replace(os.sep, ".")
            packages.append(pkg)
            package_dir[pkg] = dirpath
    return packages, package_dir


packages, package_dir = _packages()
setup(packages=packages, package_dir=package_dir)
