"""fuzzingbook's virtualenv, for the scripts that run it as a tool (coverage-race, suite-table):
one place that knows how it is made, so that both reuse the same one.

The virtualenv is made on first use with `python3 -m venv` and `pip install --no-deps
fuzzingbook==1.2.2 markdown graphviz` (markdown and graphviz are all its GrammarCoverageFuzzer
module needs to import; its other dependencies are for notebooks and plots), and reused after.
If `python3 -m venv` fails because Debian's python3-venv is missing, it is installed with
apt-get (as root or through sudo), as the other scripts install their Debian packages.

`fuzzingbook_python(venv, warn)` returns (python, None) or (None, why not); a setup that cannot
go on at all (a directory in the way, venv broken after installing python3-venv) raises
SetupFailed, which the scripts turn into their exit 2."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

PIP_PACKAGES = ["fuzzingbook==1.2.2", "markdown", "graphviz"]
# Written into the virtualenv once pip has installed PIP_PACKAGES; a different list remakes it.
STAMP = "bonsai-coverage-race.txt"


class SetupFailed(Exception):
    pass


def default_venv():
    """$XDG_CACHE_HOME/bonsai-coverage-race, else ~/.cache/bonsai-coverage-race: the name
    coverage-race gave it first, kept so that an existing virtualenv is found again."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "bonsai-coverage-race"


def apt_install(warn, *packages):
    warn(f"installing Debian's {' '.join(packages)} with apt-get")
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    if sudo and shutil.which("sudo") is None:
        return False
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = sudo + ["apt-get", "install", "-y", "-qq", *packages]
    if subprocess.run(install, env=env).returncode == 0:
        return True
    return (subprocess.run(sudo + ["apt-get", "update", "-qq"], env=env).returncode == 0
            and subprocess.run(install, env=env).returncode == 0)


def make_venv(venv, warn):
    if venv.is_dir() and any(venv.iterdir()) and not (venv / "pyvenv.cfg").exists():
        raise SetupFailed(
            f"--venv {venv} is a directory with files but no virtualenv; refusing to clear it")
    command = [sys.executable, "-m", "venv", "--clear", str(venv)]
    made = subprocess.run(command, capture_output=True, text=True)
    if made.returncode == 0:
        return
    reason = (made.stderr or made.stdout).strip()
    ensurepip = subprocess.run([sys.executable, "-c", "import ensurepip, venv"],
                               capture_output=True).returncode == 0
    if ensurepip:
        raise SetupFailed(f"`{' '.join(command)}` failed:\n{reason}")
    warn(f"`{sys.executable} -m venv` failed: Debian's python3-venv package is missing (it "
         "provides ensurepip, which venv needs to install pip)")
    if not apt_install(warn, "python3-venv"):
        raise SetupFailed("could not install python3-venv; install it with `sudo apt-get "
                          "install python3-venv` and run again")
    made = subprocess.run(command, capture_output=True, text=True)
    if made.returncode != 0:
        raise SetupFailed(f"`{' '.join(command)}` still fails after installing python3-venv:\n"
                          f"{made.stderr.strip()}")


def fuzzingbook_python(venv, warn, remake=False):
    """The virtualenv's python with fuzzingbook importable, or an error string. A virtualenv
    made earlier is reused; one that no longer imports fuzzingbook is made again, once."""
    python = venv / "bin" / "python"
    stamp = venv / STAMP
    wanted = " ".join(PIP_PACKAGES) + "\n"
    made = remake or not (python.exists() and stamp.exists() and stamp.read_text() == wanted)
    if made:
        warn(f"making fuzzingbook's virtualenv in {venv}")
        make_venv(venv, warn)
        pip = subprocess.run(
            [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
             "--no-deps", *PIP_PACKAGES], capture_output=True, text=True)
        if pip.returncode != 0:
            lines = pip.stderr.strip().splitlines()
            return None, f"pip install failed: {lines[-1] if lines else pip.returncode}"
        stamp.write_text(wanted)
    check = subprocess.run(
        [str(python), "-c", "import fuzzingbook.GrammarCoverageFuzzer"],
        capture_output=True, text=True)
    if check.returncode != 0:
        if not made:
            return fuzzingbook_python(venv, warn, remake=True)
        lines = check.stderr.strip().splitlines()
        # A missing module names what PIP_PACKAGES lacks.
        return None, f"import failed: {lines[-1] if lines else check.returncode}"
    return python, None
