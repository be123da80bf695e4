"""Installing the package (issue 27, item 1): the build backend's readable error where
meson-python is missing, scripts/install-python.sh's checks, and meson.build installing every
module. The full install (a 2-minute compile) is scripts/check-python-package.sh's, run by
.ci/run; scripts/install-python.sh was run by hand (bindings/python/README.md)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]  # bindings/python
ROOT = Path(os.environ.get("KKMEANS_SOURCE_ROOT", PACKAGE.parents[1]))
SCRIPT = ROOT / "scripts" / "install-python.sh"

# Runs the backend module as pip's hook runner would, mesonpy importable or not.
PROBE = """
import sys
if sys.argv[2] == "blocked":
    sys.modules["mesonpy"] = None  # import mesonpy raises ImportError
sys.path.insert(0, sys.argv[1])
import fastkkm_build
assert not hasattr(fastkkm_build, "__wrapped__")  # dunders never import the backend
hook = fastkkm_build.build_wheel
import mesonpy
print("same" if hook is mesonpy.build_wheel else "different")
"""


def _probe(mode):
    return subprocess.run([sys.executable, "-c", PROBE, str(PACKAGE / "backend"), mode],
                          capture_output=True, text=True, timeout=60)


def test_pyproject_names_the_backend_shim():
    text = (PACKAGE / "pyproject.toml").read_text()
    assert re.search(r'^build-backend = "fastkkm_build"$', text, re.M)
    assert re.search(r'^backend-path = \["backend"\]$', text, re.M)
    assert re.search(r'^requires = \["meson-python>=0.12"\]$', text, re.M)


def test_backend_without_meson_python_says_what_to_install():
    out = _probe("blocked")
    assert out.returncode == 1 and out.stdout == ""
    assert "fastkkm: cannot build: meson-python (the module mesonpy) is not installed" in out.stderr
    assert sys.executable in out.stderr
    for hint in ("python3-mesonpy", "scripts/install-python.sh VENV", "/usr/bin/python3 -m venv --system-site-packages",
                 "--no-build-isolation"):
        assert hint in out.stderr, hint
    assert "Traceback" not in out.stderr


def test_backend_with_meson_python_is_meson_python():
    pytest.importorskip("mesonpy")
    out = _probe("available")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "same"


def test_meson_build_installs_every_module():
    installed = set(re.findall(r"'fastkkm/(\w+\.py)'", (PACKAGE / "meson.build").read_text()))
    assert installed == {p.name for p in (PACKAGE / "fastkkm").glob("*.py")}


@pytest.fixture
def bare_python(tmp_path):
    """An interpreter that sees no site-packages (python3 -S): like a pyenv python3 without
    Debian's python3-mesonpy, python3-numpy and python3-sklearn."""
    wrapper = tmp_path / "bare-python3"
    wrapper.write_text(f'#!/bin/sh\nexec {sys.executable} -S "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def _script(*args, python=None):
    env = dict(os.environ)
    env.pop("PYTHON", None)
    if python:
        env["PYTHON"] = str(python)
    return subprocess.run(["bash", str(SCRIPT), *map(str, args)], capture_output=True, text=True, env=env,
                          timeout=60)


def test_install_script_names_the_missing_debian_packages(bare_python, tmp_path):
    out = _script(tmp_path / "venv", python=bare_python)
    assert out.returncode == 1
    for line in ("- python3-mesonpy (Python module mesonpy)", "- python3-numpy (Python module numpy)",
                 "- python3-sklearn (Python module sklearn)",
                 "sudo apt-get install python3-mesonpy python3-numpy python3-sklearn",
                 "Debian's packages serve Debian's /usr/bin/python3 only"):
        assert line in out.stderr, out.stderr
    assert not (tmp_path / "venv").exists()  # nothing made


@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="Debian's interpreter")
def test_install_script_refuses_a_folder_it_cannot_use(bare_python, tmp_path):
    pytest.importorskip("mesonpy")
    (tmp_path / "file").write_text("")
    out = _script(tmp_path / "file")
    assert out.returncode == 1
    assert "exists and is not a virtual environment" in out.stderr
    # a venv whose python does not see Debian's packages (made without --system-site-packages)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "isolated")], check=True)
    out = _script(tmp_path / "isolated")
    assert out.returncode == 1
    assert "its python does not see meson-python, numpy and scikit-learn" in out.stderr
