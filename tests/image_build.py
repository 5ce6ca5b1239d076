"""The container image, built from the Dockerfile with podman, for tests/integration/test_image.py.

No Docker daemon runs on our machines, but Debian's podman builds and runs the Dockerfile as
root. Its storage and configuration live under ``.arena/containers`` (ignored by git and by the
build context), so later runs reuse the base and every unchanged layer.

The base is the official ``python:3.11-slim-bookworm`` when it can be pulled. Where it cannot
(no registry but the package registries is reachable here), a stand-in is made once from
Debian bookworm's own packages (python3 3.11, venv, pip), carrying this machine's CA bundle and
pip configuration so the build reaches the same package registries; it is passed through the
Dockerfile's ``PYTHON_IMAGE`` build argument.

As a pytest plugin: when image tests (marker ``image``) are collected they are moved to the end
of the run and the build starts at once in a child process (``python -m tests.image_build``),
so its minutes overlap the rest of the suite; the ``arena_image`` fixture waits for it. In a
parallel run (pytest-xdist) one worker claims the build and any worker's fixture waits for the
result that run's build writes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import asdict, dataclass
from pathlib import Path
from shutil import which
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
STATE = ROOT / ".arena" / "containers"
RESULT = STATE / "build-result.json"
LOG = STATE / "build.log"
IMAGE = "localhost/arena:test"
OFFICIAL_BASE = "docker.io/library/python:3.11-slim-bookworm"
STANDIN_BASE = "localhost/arena-standin/python:3.11-slim-bookworm"
STANDIN_PACKAGES = "python3,python3-venv,python3-pip,python-is-python3,ca-certificates"
DEBIAN_MIRROR = os.environ.get("ARENA_DEBIAN_MIRROR", "http://deb.debian.org/debian")
#: What the stand-in drops, as the official slim image does: downloaded packages, indexes, docs.
STANDIN_TRIM = (
    "var/cache/apt/archives",
    "var/lib/apt/lists",
    "usr/share/doc",
    "usr/share/man",
    "usr/share/locale",
)
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
#: The longest a build may take, cold (the stand-in, every layer) on a slow registry.
BUILD_TIMEOUT_S = 1800

# This sandbox cannot raise rlimits inside a container, and no systemd runs to keep
# healthcheck timers or an event journal.
_CONTAINERS_CONF = """\
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
"""
_STORAGE_CONF = """\
[storage]
driver = "overlay"
graphroot = "{root}/storage"
runroot = "{root}/run"
"""


def podman_missing() -> str | None:
    """Why podman cannot run containers here, or ``None`` when it can."""
    if shutil.which("podman") is None:
        return "podman is not installed (make test installs Debian's podman)"
    if os.geteuid() != 0:
        return "podman builds and runs the image as root here"
    return None


class Podman:
    """The ``podman`` command with the project's own storage and configuration."""

    def __init__(self, state: Path = STATE) -> None:
        state.mkdir(parents=True, exist_ok=True)
        conf, storage = state / "containers.conf", state / "storage.conf"
        conf.write_text(_CONTAINERS_CONF)
        storage.write_text(_STORAGE_CONF.format(root=state))
        self.env = {
            **os.environ,
            "CONTAINERS_CONF": str(conf),
            "CONTAINERS_STORAGE_CONF": str(storage),
        }

    def __call__(
        self, *args: str, check: bool = True, timeout: float | None = 120
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            ["podman", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"podman {' '.join(args)} failed:\n{result.stderr[-3000:]}")
        return result

    def exists(self, image: str) -> bool:
        return self("image", "exists", image, check=False).returncode == 0

    def size(self, image: str) -> int:
        return int(self("image", "inspect", "--format", "{{.Size}}", image).stdout.strip())


def _standin(podman: Podman) -> str:
    """Make the stand-in base from Debian bookworm's packages (about a minute, once)."""
    if podman.exists(STANDIN_BASE):
        return STANDIN_BASE
    with tempfile.TemporaryDirectory(dir=STATE, prefix="standin-") as folder:
        rootfs = Path(folder) / "rootfs"
        subprocess.run(
            ["debootstrap", "--variant=minbase", f"--include={STANDIN_PACKAGES}"]
            + ["bookworm", str(rootfs), DEBIAN_MIRROR],
            check=True,
            capture_output=True,
            timeout=900,
        )
        for rel in STANDIN_TRIM:  # emptied, kept: apt expects its folders
            shutil.rmtree(rootfs / rel, ignore_errors=True)
            (rootfs / rel).mkdir(parents=True)
        for rel in ("var/cache/apt/archives/partial", "var/lib/apt/lists/partial"):
            (rootfs / rel).mkdir()
        shutil.copyfile(CA_BUNDLE, rootfs / "etc/ssl/certs/ca-certificates.crt")
        if Path("/etc/pip.conf").is_file():
            shutil.copyfile("/etc/pip.conf", rootfs / "etc/pip.conf")
        changes = [
            'CMD ["python3"]',
            "ENV LANG=C.UTF-8",
            f"ENV SSL_CERT_FILE={CA_BUNDLE}",
            f"ENV PIP_CERT={CA_BUNDLE}",
            f"ENV NODE_EXTRA_CA_CERTS={CA_BUNDLE}",
        ]
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        subprocess.run(
            ["podman", "import", *(a for c in changes for a in ("--change", c)), "-", STANDIN_BASE],
            env=podman.env,
            stdin=tar.stdout,
            capture_output=True,
            check=True,
            timeout=600,
        )
        if tar.wait() != 0:
            raise RuntimeError(f"tar of the stand-in's root failed ({tar.returncode})")
    return STANDIN_BASE


def base_image(podman: Podman) -> str:
    """The official base when it is here or can be pulled, else the stand-in."""
    if podman.exists(OFFICIAL_BASE):
        return OFFICIAL_BASE
    if podman("pull", "--quiet", OFFICIAL_BASE, check=False, timeout=300).returncode == 0:
        return OFFICIAL_BASE
    return _standin(podman)


@dataclass(frozen=True)
class BuildResult:
    """What the build made: the image, its base, how long it took and what it weighs."""

    image: str
    base: str
    seconds: float
    size: int
    base_size: int
    #: (bytes, instruction) of each layer the Dockerfile's runtime stage added, largest first.
    layers: list[tuple[int, str]]

    @property
    def added(self) -> int:
        """Bytes the Dockerfile added to its base."""
        return self.size - self.base_size


def build(podman: Podman) -> BuildResult:
    """Build the Dockerfile from the working tree into ``IMAGE``."""
    started = time.monotonic()
    base = base_image(podman)
    with LOG.open("a") as log:
        log.write(f"\n== {time.strftime('%Y-%m-%d %H:%M:%S')} building {IMAGE} on {base}\n")
        log.flush()
        result = subprocess.run(
            ["podman", "build", "--format", "docker", "--network", "host", "--layers"]
            + ["--build-arg", f"PYTHON_IMAGE={base}", "--tag", IMAGE, str(ROOT)],
            env=podman.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            timeout=BUILD_TIMEOUT_S,
            check=False,
        )
    if result.returncode != 0:
        raise RuntimeError(f"podman build failed; see {LOG}:\n{LOG.read_text()[-4000:]}")
    history = json.loads(podman("history", "--format", "json", IMAGE).stdout)
    base_layers = len(json.loads(podman("history", "--format", "json", base).stdout))
    own = history[: len(history) - base_layers]
    layers = sorted(
        ((int(h["size"]), str(h["CreatedBy"])) for h in own),
        reverse=True,
    )
    return BuildResult(
        image=IMAGE,
        base=base,
        seconds=time.monotonic() - started,
        size=podman.size(IMAGE),
        base_size=podman.size(base),
        layers=[layer for layer in layers if layer[0] > 0],
    )


def main(run: str = "") -> None:
    """Build, and write the result (or the failure) to ``RESULT``, marked with ``run``."""
    RESULT.unlink(missing_ok=True)
    try:
        outcome: dict[str, object] = {"ok": asdict(build(Podman()))}
    except Exception as exc:  # reported to the test that waits for the build
        outcome = {"error": f"{type(exc).__name__}: {exc}"}
    outcome["run"] = run
    RESULT.write_text(json.dumps(outcome))
    _claim(run).unlink(missing_ok=True)


# -- the pytest plugin -----------------------------------------------------------------------------

_BUILD = pytest.StashKey[subprocess.Popen[bytes]]()
_RUN = pytest.StashKey[str]()


def _run_id(config: pytest.Config) -> str:
    """The id of this test run, the same in every worker of a parallel run (pytest-xdist)."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        return str(workerinput["testrunuid"])
    run = config.stash.get(_RUN, None)
    if run is None:
        run = config.stash[_RUN] = uuid.uuid4().hex
    return run


def _claim(run: str) -> Path:
    """The file whose creation makes one worker of run ``run`` the one that builds."""
    return STATE / f"build-{run}.claim"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Image tests go last, and their build starts now, beside everything else.

    In a parallel run every worker collects the same tests; the first to claim the run builds
    (in a child), and whichever worker runs the image tests waits for that build's result.
    """
    image = [item for item in items if item.get_closest_marker("image")]
    if not image or podman_missing() is not None:
        return
    items[:] = [item for item in items if not item.get_closest_marker("image")] + image
    STATE.mkdir(parents=True, exist_ok=True)
    run = _run_id(config)
    try:
        os.close(os.open(_claim(run), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return  # another worker of this run builds
    # At a low priority: the build has the rest of the suite's minutes to finish in, and the
    # tests beside it should not wait on it for the CPU or the disk.
    polite = ["nice", "-n", "15"] + (["ionice", "-c", "2", "-n", "7"] * bool(which("ionice")))
    with LOG.open("ab") as log:
        config.stash[_BUILD] = process = subprocess.Popen(
            [*polite, sys.executable, "-m", "tests.image_build", run],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    _claim(run).write_text(str(process.pid))  # for a waiting worker to see that it still runs


def pytest_unconfigure(config: pytest.Config) -> None:
    process = config.stash.get(_BUILD, None)
    if process is None or process.poll() is not None:
        return
    if getattr(config, "workerinput", None) is not None:
        # A worker that is done while another one may still wait for this build: the build
        # finishes on its own (writing the result, removing the claim).
        return
    process.terminate()
    process.wait(timeout=30)


def _result_of(run: str) -> dict[str, Any] | None:
    """The build result of run ``run``, once written."""
    try:
        outcome: dict[str, Any] = json.loads(RESULT.read_text())
    except (OSError, ValueError):  # not written yet, or being written
        return None
    return outcome if outcome.get("run") == run else None


def _wait_for_build(config: pytest.Config) -> dict[str, Any]:
    """The result of this run's build: started by this process, by another worker, or here."""
    run = _run_id(config)
    process = config.stash.get(_BUILD, None)
    if process is not None:
        process.wait(timeout=BUILD_TIMEOUT_S)
    elif not _claim(run).exists() and _result_of(run) is None:
        main(run)  # collected some other way: build here
    deadline = time.monotonic() + BUILD_TIMEOUT_S
    while (outcome := _result_of(run)) is None:
        if time.monotonic() > deadline or not _builder_alive(run):
            pytest.fail(f"the image build of this run wrote no result; see {LOG}", pytrace=False)
        time.sleep(1)
    return outcome


def _builder_alive(run: str) -> bool:
    """Whether the build of run ``run`` may still write its result: its claim names a process
    that runs (or names none yet), or the result came meanwhile."""
    try:
        pid = _claim(run).read_text().strip()
    except FileNotFoundError:  # removed when the result was written
        return True
    if not pid.isdigit():
        return True  # claimed, the build not started yet
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return _result_of(run) is not None
    except PermissionError:
        return True
    return True


@pytest.fixture(scope="session")
def podman() -> Podman:
    missing = podman_missing()
    if missing is not None:
        pytest.skip(missing)
    return Podman()


@pytest.fixture(scope="session")
def arena_image(request: pytest.FixtureRequest, podman: Podman) -> BuildResult:
    """The image built from this tree (waits for the build the collection started)."""
    outcome = _wait_for_build(request.config)
    if "error" in outcome:
        pytest.fail(f"the image did not build: {outcome['error']}", pytrace=False)
    ok = outcome["ok"]
    return BuildResult(**{**ok, "layers": [tuple(layer) for layer in ok["layers"]]})


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "")
