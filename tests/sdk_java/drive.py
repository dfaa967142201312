"""The Java SDK suite around one Thrift2 gateway (tests/sdk_java/run.sh runs this):

1. `redbase serve` on a free loopback port (or REDBASE_SDK_TARGET=host:port, already running);
2. one Maven build with the JUnit tests (vectors, end to end), the target passed to them as
   REDBASE_SDK_TARGET;
3. the vector runner's summary lines;
4. the cross-language check with the Python tool for each case of tests/xlang/README.md (rows,
   versions, batches): Python writes, then the Java dump must equal the Python dump; Java writes,
   then the Python dump must equal the Java dump (and the first dump).

Exits non-zero if any step fails; the server must exit 0 on SIGTERM.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests"))

from redbase_proc import RedbaseProcess  # noqa: E402


def java_cp():
    suite = HERE / "suite" / "target"
    return f"{suite / 'classes'}:{(suite / 'classpath.txt').read_text().strip()}"


def run(title, cmd, env, capture=False):
    print(f"== {title}", flush=True)
    r = subprocess.run(cmd, env=env, cwd=REPO, stdout=subprocess.PIPE if capture else None, text=True)
    if r.returncode != 0:
        print(f"tests/sdk_java: {title} failed with exit {r.returncode}", file=sys.stderr)
        return None
    return r.stdout if capture else ""


# The cases of tests/xlang/README.md: (name, write command, dump command).
CASES = [("rows", "write", "dump"), ("versions", "write-versions", "dump-versions"), ("batches", "write-batch", "dump-batch")]


def xlang(host, port, env):
    """Both directions of every cross-language case; returns the number of failed comparisons."""
    py_env = dict(env, PYTHONPATH=f"{REPO / 'sdks' / 'python'}:{env.get('PYTHONPATH', '')}")
    tools = {"python": [sys.executable, str(REPO / "tests" / "xlang" / "xlang.py")], "java": [str(HERE / "xlang.sh")]}

    def dump(side, cmd):
        out = run(f"xlang: {side} {cmd}", tools[side] + [cmd, host, port], py_env, True)
        return None if out is None else json.loads(out)

    failed = 0
    for name, write, dump_cmd in CASES:
        if run(f"xlang: python {write}", tools["python"] + [write, host, port], py_env) is None:
            failed += 1
            continue
        java_dump, py_dump = dump("java", dump_cmd), dump("python", dump_cmd)
        if java_dump is None or py_dump is None or java_dump != py_dump or not py_dump:
            print(f"XLANG {name}: python {write}: java {dump_cmd} != python {dump_cmd}", file=sys.stderr)
            failed += 1
        else:
            print(f"XLANG {name}: python {write}: java {dump_cmd} == python {dump_cmd}")
        first = py_dump
        if run(f"xlang: java {write}", tools["java"] + [write, host, port], py_env) is None:
            failed += 1
            continue
        py_dump, java_dump = dump("python", dump_cmd), dump("java", dump_cmd)
        if py_dump is None or java_dump is None or py_dump != java_dump or py_dump != first:
            print(f"XLANG {name}: java {write}: python {dump_cmd} != java {dump_cmd} (or != the python write's)",
                  file=sys.stderr)
            failed += 1
        else:
            print(f"XLANG {name}: java {write}: python {dump_cmd} == java {dump_cmd} == python write's")
    return failed


def main():
    target = os.environ.get("REDBASE_SDK_TARGET")
    proc = None
    with tempfile.TemporaryDirectory() as tmp:
        if not target:
            proc = RedbaseProcess(Path(tmp) / "data", gateways=("thrift2",)).start()
            target = f"{proc.host}:{proc.ports['thrift2']}"
        host, _, port = target.rpartition(":")
        env = dict(os.environ, REDBASE_SDK_TARGET=target)
        failed = 0
        try:
            goals = ["test"]
            if proc is None:
                # An external gateway (HBase's) serves one transport: the test of redbase's
                # per-connection detection of framed transport does not apply to it.
                print("== external target: leaving out the tests tagged redbase-only (framed on the same port)")
                goals.append("-DexcludedGroups=redbase-only")
                # A shared gateway may hold other suites' tables of the same names: the JUnit
                # tests keep to a namespace of their own.
                env = dict(env, REDBASE_SDK_NAMESPACE=env.get("REDBASE_SDK_NAMESPACE", "sdk_java"))
            if run("mvn test (tests/sdk_java: SDK + suite)", [str(HERE / "build.sh"), "--force", *goals], env) is None:
                return 1
            if run("vector runner", ["java", "-cp", java_cp(), "org.redbase.tests.Vectors"], env) is None:
                failed += 1
            failed += xlang(host, port, env)
        finally:
            if proc is not None:
                code = proc.stop()
                if code != 0:
                    print(f"redbase exited with {code} after SIGTERM:\n{proc.log_tail()}", file=sys.stderr)
                    failed += 1
        return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
