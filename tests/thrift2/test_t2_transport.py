"""Thrift2 over HTTP (binary Thrift in POST bodies), and clients of every kind at once."""

import threading

import pytest

from t2_util import COMBOS, T, cells, create_table, put, rows_of, scan_all


@pytest.mark.parametrize("path", ["/", "/thrift"])
def test_http_post_round_trip(server, client, table_name, path):
    t = create_table(client, table_name, ("f",))
    h = server.http_client(path)
    try:
        put(h, t, b"r1", {(b"f", b"a"): b"over-http"})
        assert cells(h.get(t, T.TGet(row=b"r1"))) == {(b"f", b"a"): b"over-http"}
        assert rows_of(h.getScannerResults(t, T.TScan(), 10)) == [b"r1"]
        assert h.getThriftServerType() == T.TThriftServerType.TWO
        with pytest.raises(T.TIOError):
            h.get(b"t2_no_such_table_http", T.TGet(row=b"r"))
        with pytest.raises(T.TIllegalArgument):
            h.getScannerRows(424242, 1)
    finally:
        h.close()
    # Visible to a socket client too.
    assert cells(client.get(t, T.TGet(row=b"r1"))) == {(b"f", b"a"): b"over-http"}


def test_concurrent_clients_over_every_combination(server, client, table_name):
    t = create_table(client, table_name, ("f",))
    errors = []

    def work(i, combo):
        try:
            c = server.client(*combo)
            try:
                for j in range(20):
                    row = f"{i:02d}-{j:02d}".encode()
                    put(c, t, row, {(b"f", b"v"): row})
                    assert cells(c.get(t, T.TGet(row=row))) == {(b"f", b"v"): row}
            finally:
                c.close()
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((i, combo, repr(e)))

    threads = [threading.Thread(target=work, args=(i, COMBOS[i % 4])) for i in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert not errors
    assert len(scan_all(client, t)) == 8 * 20
