"""The container image, built from Containerfile with buildah and run from it.

No Docker engine runs here and no base image can be pulled, so buildah builds the `FROM
scratch` image (in a storage root of its own under the test's temporary directory) and runs the
server from it with chroot isolation: the process shares the host's network, so it serves on
the host's loopback like a container with published ports. The test talks Thrift to it,
stops it with SIGTERM, starts it again on the same /data directory and reads the data back.
"""

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import free_port, wait_until  # noqa: E402

import happybase  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
IMAGE = "localhost/redbase-ci:test"
UID = 65532
# A generous bound for a scratch image holding one stripped static binary.
MAX_IMAGE_BYTES = 40 * 1024 * 1024


def static_binary() -> Path:
    path = Path(os.environ.get("REDBASE_STATIC_BIN",
                               REPO / "target/x86_64-unknown-linux-musl/release/redbase"))
    assert path.exists(), f"{path}: build it with tests/container/run.sh"
    return path


class Buildah:
    """buildah with a storage root of its own, so the test neither sees nor leaves images."""

    def __init__(self, base: Path):
        self.store = ["--root", str(base / "root"), "--runroot", str(base / "runroot"),
                      "--storage-driver", "vfs"]

    def cmd(self, *args):
        return ["buildah", *self.store, *args]

    def __call__(self, *args, timeout=600) -> str:
        r = subprocess.run(self.cmd(*args), capture_output=True, text=True, timeout=timeout)
        assert r.returncode == 0, f"buildah {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}"
        return r.stdout


@pytest.fixture(scope="module")
def buildah(tmp_path_factory):
    b = Buildah(tmp_path_factory.mktemp("buildah"))
    started = time.monotonic()
    b("bud", "--format", "docker", "--isolation", "chroot", "-f", "Containerfile",
      "-t", IMAGE, "--build-arg",
      f"BINARY={static_binary().relative_to(REPO)}", str(REPO))
    print(f"\nimage built in {time.monotonic() - started:.1f} s")
    yield b
    subprocess.run(b.cmd("rm", "--all"), capture_output=True, timeout=120)
    subprocess.run(b.cmd("rmi", "--all", "--force"), capture_output=True, timeout=120)


def test_binary_is_static():
    out = subprocess.run(["ldd", str(static_binary())], capture_output=True, text=True)
    text = out.stdout + out.stderr
    assert "statically linked" in text or "not a dynamic executable" in text, text
    # musl's own malloc serialises threads; every build links jemalloc instead.
    assert b"jemalloc" in static_binary().read_bytes()


def test_image_config(buildah):
    info = json.loads(buildah("inspect", "--type", "image", IMAGE))
    cfg = info["Docker"]["config"]
    assert cfg["User"] == f"{UID}:{UID}"
    assert set(cfg["ExposedPorts"]) == {"9090/tcp", "9091/tcp", "8080/tcp", "16020/tcp",
                                        "2181/tcp"}
    assert set(cfg["Volumes"]) == {"/data"}
    env = dict(e.split("=", 1) for e in cfg["Env"])
    assert env["REDBASE_DATA_DIR"] == "/data"
    assert env["REDBASE_THRIFT1_ADDR"] == "0.0.0.0:9090"
    assert env["REDBASE_THRIFT2_ADDR"] == "0.0.0.0:9091"
    assert env["REDBASE_HTTP_ADDR"] == "0.0.0.0:8080"
    assert env["REDBASE_HBASE_RPC_ADDR"] == "0.0.0.0:16020"
    assert env["REDBASE_ZOOKEEPER_ADDR"] == "0.0.0.0:2181"
    # jemalloc needs no settings to give idle memory back (docs/reliability.md).
    assert not any(k.startswith("MIMALLOC_") for k in env)
    assert cfg["Entrypoint"] == ["/redbase"] and cfg["Cmd"] == ["serve"]
    assert cfg["StopSignal"] == "SIGTERM"
    assert cfg["Healthcheck"]["Test"] == ["CMD", "/redbase", "healthcheck"]

def test_image_size(buildah, tmp_path):
    # As shipped: an OCI archive with gzip layers. Unpacked: the files of its root filesystem.
    shipped = tmp_path / "image.tar"
    buildah("push", "--quiet", IMAGE, f"oci-archive:{shipped}")
    ctr = buildah("from", IMAGE).strip()
    try:
        root = Path(buildah("mount", ctr).strip())
        files = [p for p in root.rglob("*") if p.is_file()]
        unpacked = sum(p.stat().st_size for p in files)
        names = sorted(str(p.relative_to(root)) for p in files)
    finally:
        buildah("umount", ctr)
        buildah("rm", ctr)
    binary = static_binary().stat().st_size
    print(f"\nimage size: {shipped.stat().st_size / 1e6:.1f} MB compressed, "
          f"{unpacked / 1e6:.1f} MB unpacked (binary {binary / 1e6:.1f} MB); files {names}")
    assert names == ["data/.keep", "redbase"], "nothing but the binary and the volume's mount point"
    assert binary == unpacked < MAX_IMAGE_BYTES
    assert shipped.stat().st_size < unpacked


def varint(buf, at):
    """A protobuf varint at `at`: its value and where the next field starts."""
    value, shift = 0, 0
    while True:
        b = buf[at]
        at += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return value, at


class Container:
    """One `buildah run` of the image's server with /data on a host directory."""

    def __init__(self, buildah: Buildah, name: str, data: Path, log: Path):
        self.buildah, self.name, self.data, self.log_path = buildah, name, data, log
        self.p1, self.p2, self.http = free_port(), free_port(), free_port()
        self.native, self.zk = free_port(), free_port()
        self.proc = None

    def env(self):
        # The image's configuration is by environment: only the addresses change here, to
        # free loopback ports (the host's network is the container's).
        return [f"REDBASE_THRIFT1_ADDR=127.0.0.1:{self.p1}",
                f"REDBASE_THRIFT2_ADDR=127.0.0.1:{self.p2}",
                f"REDBASE_HTTP_ADDR=127.0.0.1:{self.http}",
                f"REDBASE_HBASE_RPC_ADDR=127.0.0.1:{self.native}",
                f"REDBASE_ZOOKEEPER_ADDR=127.0.0.1:{self.zk}",
                "REDBASE_ADVERTISED_HOST=127.0.0.1"]

    def cluster_id(self):
        """The cluster id through HBase's native RPC: the "Regist" preamble, answered with a
        GetConnectionRegistryResponse as the answer to no call (call id -1), then closed."""
        with socket.create_connection(("127.0.0.1", self.native), timeout=10) as s:
            s.sendall(b"Regist")
            body = b""
            while len(body) < 4 or len(body) < 4 + struct.unpack(">I", body[:4])[0]:
                chunk = s.recv(4096)
                assert chunk, f"closed after {body!r}"
                body += chunk
        at = 4
        n, at = varint(body, at)       # the ResponseHeader, skipped
        at += n
        n, at = varint(body, at)       # GetConnectionRegistryResponse
        message = body[at:at + n]
        assert message[0] == 0x0A, message  # field 1, cluster_id
        length, start = varint(message, 1)
        return message[start:start + length].decode()

    def zookeeper_ruok(self):
        with socket.create_connection(("127.0.0.1", self.zk), timeout=10) as s:
            s.sendall(b"ruok")
            return s.recv(16)

    def run_args(self, *command):
        args = ["run", "--isolation", "chroot", "-v", f"{self.data}:/data"]
        for e in self.env():
            args += ["-e", e]
        return [*args, self.name, "--", *command]

    def start(self):
        self._log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.buildah.cmd(*self.run_args("/redbase", "serve")),
                                     stdout=self._log, stderr=subprocess.STDOUT)
        ready = wait_until(lambda: self.proc.poll() is not None or self._ready(), timeout=60)
        assert ready and self.proc.poll() is None, f"server did not start:\n{self.log()}"
        return self

    def _ready(self):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.http}/readyz", timeout=2) as r:
                return r.status == 200
        except OSError:
            return False

    def healthcheck(self):
        """The image's HEALTHCHECK command, run inside the container beside the server."""
        r = subprocess.run(self.buildah.cmd(*self.run_args("/redbase", "healthcheck")),
                           capture_output=True, text=True, timeout=60)
        return r.returncode, r.stderr

    def server_pid(self):
        """The server process inside the container: `buildah run` answers SIGTERM by killing
        its child, whereas `docker stop` signals the container's own process, so the test
        signals the server itself, found among the descendants of its `buildah run`."""
        parents = {}
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
                parents[int(stat.parent.name)] = int(fields[1])
            except (OSError, IndexError, ValueError):
                continue
        for pid in parents:
            p = pid
            while p in parents and p != self.proc.pid:
                p = parents[p]
            if p != self.proc.pid:
                continue
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if cmd[:2] == [b"/redbase", b"serve"]:
                return pid
        return None

    def stop(self, timeout=60):
        pid = self.server_pid()
        assert pid is not None, f"no /redbase serve process under buildah run:\n{self.log()}"
        os.kill(pid, signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            code = None
        self._log.close()
        return code

    def log(self):
        try:
            return self.log_path.read_text(errors="replace")[-4000:]
        except OSError:
            return "(no log)"


def test_serves_stops_cleanly_and_keeps_data_in_the_volume(buildah, tmp_path):
    data = tmp_path / "volume"
    data.mkdir()
    os.chown(data, UID, UID)  # as Docker's named volume copies /data's owner from the image
    name = "redbase-ci-" + str(os.getpid())
    buildah("from", "--name", name, IMAGE)
    # `buildah run` gives each VOLUME of the image an anonymous volume of its own, which
    # shadows `-v DIR:/data`; `docker run -v` replaces it. Dropping the declaration from this
    # working container (the image keeps it, see test_image_config) lets -v take its place.
    buildah("config", "--volume", "/data-", name)

    first = Container(buildah, name, data, tmp_path / "first.log").start()
    try:
        conn = happybase.Connection("127.0.0.1", first.p1, timeout=10_000)
        conn.create_table("kept", {"f": {"max_versions": 2}})
        table = conn.table("kept")
        for i in range(100):
            table.put(f"row{i:03d}".encode(), {b"f:v": f"value {i}".encode()})
        conn.close()
        code, err = first.healthcheck()
        assert code == 0, err
        # HBase's native RPC and the ZooKeeper responder answer from the container too.
        cluster = first.cluster_id()
        assert len(cluster) == 36, cluster
        assert first.zookeeper_ruok() == b"imok"
    finally:
        exit_code = first.stop()
    assert exit_code == 0, f"SIGTERM must stop the server cleanly:\n{first.log()}"
    assert "shutting down" in first.log()
    files = list(data.rglob("*"))
    assert any(f.name == "meta.redb" for f in files), files
    owners = {f.stat().st_uid for f in files if f.name != ".keep"}
    assert owners == {UID}, f"the server runs as {UID}, not root: {owners}"

    second = Container(buildah, name, data, tmp_path / "second.log").start()
    try:
        conn = happybase.Connection("127.0.0.1", second.p1, timeout=10_000)
        rows = dict(conn.table("kept").scan())
        conn.close()
        assert len(rows) == 100
        assert rows[b"row042"] == {b"f:v": b"value 42"}
        assert second.cluster_id() == cluster, "the cluster id lives in the volume"
    finally:
        assert second.stop() == 0, second.log()
    assert second.healthcheck()[0] == 1, "no server, no health"
