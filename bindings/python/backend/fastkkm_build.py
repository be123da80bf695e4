"""fastkkm's PEP 517 build backend: meson-python's (mesonpy), loaded when pip first asks for a
hook, so that a missing meson-python is a readable error instead of pip's "BackendUnavailable:
No module named 'mesonpy'". pyproject.toml names this module (backend-path = backend);
every hook is mesonpy's own."""
import sys


def _missing(error):
    python = sys.executable or "python3"
    return f"""
fastkkm: cannot build: meson-python (the module mesonpy) is not installed for the Python
that runs pip, {python} (Python {sys.version.split()[0]}): {error}.

With --no-build-isolation pip builds with that interpreter's own packages. Either
  - use Debian's interpreter, which sees Debian's python3-mesonpy, python3-numpy and
    python3-sklearn (sudo apt-get install python3-mesonpy python3-numpy python3-sklearn
    python3-venv python3-pip meson ninja-build g++, or scripts/install-deps.sh):
        scripts/install-python.sh VENV
    or by hand
        /usr/bin/python3 -m venv --system-site-packages VENV
        VENV/bin/pip install --no-build-isolation ./bindings/python
    (a python3 first on PATH from pyenv, conda or python.org does not see Debian's packages);
  - or install meson-python, meson and ninja into this interpreter ({python} -m pip install
    meson-python meson ninja), or drop --no-build-isolation so that pip fetches them itself
    (network needed).
"""


def _backend():
    try:
        import mesonpy
    except ImportError as e:
        raise SystemExit(_missing(e)) from None
    return mesonpy


def __getattr__(name):
    # pip probes optional hooks by getattr: an AttributeError means "not provided", so
    # dunder look-ups (copy, pickle, introspection) must not import or exit.
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_backend(), name)
