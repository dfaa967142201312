"""A `redbase serve` whose operations listener serves the REST API, for the REST clients."""

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from redbase_proc import RedbaseProcess  # noqa: E402


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    proc = RedbaseProcess(tmp_path_factory.mktemp("rest") / "data", gateways=("thrift2",))
    proc.start()
    yield proc
    proc.stop_and_check()
