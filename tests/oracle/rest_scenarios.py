"""The REST differential scenarios (tests/oracle/rest_diff.py): each step is one HTTP request
sent to redbase and to HBase 2.6.1's REST server; their answers are compared after
normalisation. `{P}` in a path or body is the run's table prefix; `$name` in a path is what a
step saved (a scanner's path) on that side.

Step fields: name (how tests/oracle/rest-allow.json names it; else method, path and Accept),
method, path, accept, ctype (Content-Type), body (str, bytes, a JSON value sent as JSON, or
pbmsg(message, fields): a protobuf message of tests/oracle/rest_pb.py), save (keep the Location
path under a name), compare ("full" [default], "status": the status code alone), pb (the
protobuf message of the answer, decoded field by field; "stream:CellSet" for a stateless
scan's chunks), norm ("version" or "status", see rest_diff.py), comment.
"""

import base64
import gzip
import json as _json
import zlib


def b(s):
    return base64.b64encode(s.encode() if isinstance(s, str) else s).decode()


J = "application/json"
X = "text/xml"
T = "text/plain"
O = "application/octet-stream"
PB = "application/x-protobuf"


def pbmsg(message, fields):
    return ("pb", message, fields)


def pb_varint(n):
    out = b""
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out += bytes([byte | 0x80])
        else:
            return out + bytes([byte])


def pb_field(tag, wire, payload):
    key = pb_varint((tag << 3) | wire)
    if wire == 2:
        return key + pb_varint(len(payload)) + payload
    return key + payload


def pb_cellset(key, column, ts, value):
    """HBase REST's CellSet message with one row of one cell, written by hand."""
    c = pb_field(2, 2, column.encode()) + pb_field(3, 0, pb_varint(ts)) + pb_field(4, 2, value.encode())
    row = pb_field(1, 2, key.encode()) + pb_field(2, 2, c)
    return pb_field(1, 2, row)


def cell(col, val, ts=None):
    c = {"column": b(col), "$": b(val)}
    if ts is not None:
        c["timestamp"] = ts
    return c


def rows(*rs):
    return {"Row": [{"key": b(k), "Cell": cells} for k, cells in rs]}


def scanner(**kw):
    m = {}
    for k, v in kw.items():
        m[k] = v
    return m


SCHEMA = {"name": "{P}t", "ColumnSchema": [{"name": "cf", "VERSIONS": "3"}, {"name": "cg"}]}

STEPS = [
    # cluster-wide resources
    dict(method="GET", path="/version/cluster", accept=T),
    dict(method="GET", path="/version/cluster", accept=J),
    dict(method="GET", path="/version/cluster", accept=X),
    # tables and schemas
    dict(method="PUT", path="/{P}t/schema", ctype=J, body=SCHEMA, compare="status"),
    dict(method="GET", path="/{P}t/schema", accept=J),
    dict(method="GET", path="/{P}t/schema", accept=X),
    dict(method="GET", path="/{P}t/exists", accept=J, compare="status"),
    dict(method="GET", path="/{P}none/exists", accept=J, compare="status"),
    dict(method="GET", path="/{P}none/schema", accept=J),
    dict(method="POST", path="/{P}t/schema", ctype=X,
         body='<TableSchema name="{P}t"><ColumnSchema name="ch" VERSIONS="2"/></TableSchema>',
         compare="status"),
    dict(method="GET", path="/{P}t/schema", accept=J, comment="after POST added ch"),
    dict(method="GET", path="/", accept=J),
    dict(method="GET", path="/", accept=X),
    dict(method="GET", path="/{P}t/regions", accept=J),
    # rows
    dict(method="PUT", path="/{P}t/fakerow", ctype=J, body=rows(
        ("r1", [cell("cf:a", "a1", 100), cell("cf:a", "a2", 200), cell("cg:b", "b1", 100)]),
        ("r2", [cell("cf:a", "x", 100)]),
        ("s1", [cell("cf:a", "s", 100)]))),
    dict(method="GET", path="/{P}t/r1", accept=J),
    dict(method="GET", path="/{P}t/r1", accept=X),
    dict(method="GET", path="/{P}t/r1/cf:a", accept=J),
    dict(method="GET", path="/{P}t/r1/cf:a?v=3", accept=J),
    dict(method="GET", path="/{P}t/r1/cf:a/100", accept=J),
    dict(method="GET", path="/{P}t/r1/cf:a/150,250", accept=J),
    dict(method="GET", path="/{P}t/r1/cf:a,cg:b", accept=J),
    dict(method="GET", path="/{P}t/r1/cf", accept=X),
    dict(method="GET", path="/{P}t/r1/cf:a", accept=O),
    dict(method="GET", path="/{P}t/r1", accept=O),
    dict(method="GET", path="/{P}t/nope", accept=J),
    dict(method="GET", path="/{P}none/r1", accept=J),
    dict(method="GET", path="/{P}t/r*", accept=J),
    dict(method="GET", path="/{P}t/r1,s1", accept=J),
    dict(method="GET", path="/{P}t/multiget?row=r1&row=s1&row=zz", accept=J),
    dict(method="GET", path="/{P}t/multiget?row=zz", accept=J),
    dict(method="PUT", path="/{P}t/r3/cf:bin", ctype=O, body=b"\x00\xffraw", extra={"X-Timestamp": "300"}),
    dict(method="GET", path="/{P}t/r3", accept=J),
    dict(method="POST", path="/{P}t/r4", ctype=X,
         body='<CellSet><Row key="' + b("r4") + '"><Cell column="' + b("cf:x") + '" timestamp="400">'
         + b("xml") + "</Cell></Row></CellSet>"),
    dict(method="GET", path="/{P}t/r4", accept=X),
    # check-and-mutate and counters
    dict(method="PUT", path="/{P}t/r2?check=put", ctype=J, body=rows(("r2", [cell("cf:a", "y"), cell("cf:a", "wrong")]))),
    dict(method="PUT", path="/{P}t/r2?check=put", ctype=J, body=rows(("r2", [cell("cf:a", "y", 500), cell("cf:a", "x")]))),
    dict(method="GET", path="/{P}t/r2/cf:a", accept=J),
    dict(method="PUT", path="/{P}t/r2?check=put", ctype=J, body=rows(("r2", [cell("cf:a", "y")]))),
    dict(method="PUT", path="/{P}t/r2?check=nonsense", ctype=J, body=rows(("r2", [cell("cf:a", "y")]))),
    dict(method="POST", path="/{P}t/r2?check=delete", ctype=J, body=rows(("r2", [cell("cf:a", "nope")]))),
    dict(method="POST", path="/{P}t/r2?check=delete", ctype=J, body=rows(("r2", [cell("cf:a", "y")]))),
    dict(method="GET", path="/{P}t/r2", accept=J),
    dict(method="POST", path="/{P}t/n?check=increment", ctype=J, body=rows(("n", [cell("cf:n", "5")]))),
    dict(method="POST", path="/{P}t/n?check=increment", ctype=J, body=rows(("n", [cell("cf:n", "2")]))),
    dict(method="GET", path="/{P}t/n/cf:n", accept=O),
    dict(method="POST", path="/{P}t/n?check=increment", ctype=J, body=rows(("n", [cell("cf:n", "x")])), compare="status"),
    dict(method="POST", path="/{P}t/ap?check=append", ctype=J, body=rows(("ap", [cell("cf:s", "ab")]))),
    dict(method="POST", path="/{P}t/ap?check=append&returnResult=true", ctype=J, body=rows(("ap", [cell("cf:s", "cd")]))),
    # rr=true (RowResource's returnResult): append answers the new cells, increment echoes the
    # request's own row (HBase 2.6.1 adds the request's row model to its answer)
    dict(method="POST", path="/{P}t/ap?check=append&rr=true", ctype=J, accept=J, body=rows(("ap", [cell("cf:s", "ef")]))),
    dict(method="POST", path="/{P}t/ap?check=append&rr=TRUE", ctype=J, accept=X, body=rows(("ap", [cell("cf:s", "g"), cell("cf:t", "h")]))),
    dict(method="POST", path="/{P}t/n?check=increment&rr=true", ctype=J, accept=J, body=rows(("n", [cell("cf:n", "3")]))),
    dict(method="POST", path="/{P}t/n?check=increment&rr=yes", ctype=J, accept=J, body=rows(("n", [cell("cf:n", "1")]))),
    dict(method="GET", path="/{P}t/n/cf:n", accept=O),
    # deletes
    dict(method="DELETE", path="/{P}t/r1/cg:b"),
    dict(method="GET", path="/{P}t/r1", accept=J),
    dict(method="DELETE", path="/{P}t/r1/cf/150"),
    dict(method="GET", path="/{P}t/r1/cf:a?v=3", accept=J),
    dict(method="DELETE", path="/{P}t/r1"),
    dict(method="GET", path="/{P}t/r1", accept=J),
    dict(method="DELETE", path="/{P}none/r1"),
    # stateless scans
    dict(method="PUT", path="/{P}t/fakerow", ctype=J, body=rows(
        *[(f"k{i}", [cell("cf:a", f"v{i}", 100), cell("cf:b", "b", 100)]) for i in range(5)])),
    dict(method="GET", path="/{P}t/*", accept=J),
    dict(method="GET", path="/{P}t/*?limit=2", accept=J),
    dict(method="GET", path="/{P}t/k*", accept=J),
    dict(method="GET", path="/{P}t/*?startrow=k1&endrow=k3", accept=X),
    dict(method="GET", path="/{P}t/*?column=cf:b&limit=3", accept=J),
    dict(method="GET", path="/{P}t/*?startrow=k3&reversed=true&limit=2", accept=J),
    dict(method="GET", path="/{P}t/*?filter=ValueFilter(%3D%2C%27binary%3Av2%27)", accept=J),
    # HBase 2.6's filter_b64 (URL-safe base64 of a filter string), and filters on a multi-get
    dict(method="GET", path="/{P}t/*?filter_b64=" + base64.urlsafe_b64encode(b"KeyOnlyFilter()").decode(),
         accept=J),
    dict(method="GET", path="/{P}t/*?filter_b64=" + base64.urlsafe_b64encode(
        b"ValueFilter(=,'substring:3')").decode().rstrip("="), accept=J, comment="unpadded"),
    dict(method="GET", path="/{P}t/multiget?row=k1&row=k2&row=k3&filter=ValueFilter(%3D%2C%27binary%3Av2%27)",
         accept=J),
    dict(method="GET", path="/{P}t/multiget?row=k1&row=k3&filter_b64="
         + base64.urlsafe_b64encode(b"KeyOnlyFilter()").decode(), accept=X),
    dict(method="GET", path="/{P}t/multiget?row=k1&filter=ValueFilter(%3D%2C%27binary%3Anone%27)", accept=J),
    dict(name="bad filter_b64", method="GET", path="/{P}t/*?filter_b64=!!!", accept=J, compare="status"),
    # stateful scanners
    dict(method="PUT", path="/{P}t/scanner", ctype=J,
         body=scanner(batch=3, startRow=b("k"), endRow=b("k9")), save="s1", compare="status"),
    dict(method="GET", path="$s1", accept=J),
    dict(method="GET", path="$s1", accept=J),
    dict(method="GET", path="$s1", accept=X),
    dict(method="GET", path="$s1", accept=J),
    dict(method="GET", path="$s1", accept=J),
    dict(method="DELETE", path="$s1", compare="status"),
    dict(method="GET", path="$s1", accept=J, compare="status"),
    dict(method="PUT", path="/{P}none/scanner", ctype=J, body=scanner(), compare="status"),
    # XML scanner model, protobuf and raw answers
    dict(method="PUT", path="/{P}t/scanner", ctype=X, save="x1", compare="status",
         body='<Scanner startRow="' + b("k1") + '" endRow="' + b("k3") + '" batch="2" maxVersions="1">'
         + "<column>" + b("cf:a") + "</column></Scanner>"),
    dict(method="GET", path="$x1", accept=X),
    dict(method="GET", path="$x1", accept=PB, pb="CellSet"),
    dict(method="GET", path="$x1", accept=J),
    dict(method="DELETE", path="$x1", compare="status"),
    dict(method="PUT", path="/{P}t/scanner", ctype=J, body=scanner(startRow=b("k2"), maxVersions=1), save="o1",
         compare="status"),
    dict(method="GET", path="$o1", accept=O),
    dict(method="DELETE", path="$o1", compare="status"),
    # protobuf rows and schemas
    dict(method="PUT", path="/{P}t/p1", ctype=PB, body=pb_cellset("p1", "cf:pb", 700, "proto")),
    dict(method="GET", path="/{P}t/p1", accept=PB, pb="CellSet"),
    dict(method="GET", path="/{P}t/p1", accept="application/protobuf", pb="CellSet"),
    dict(method="GET", path="/{P}t/k*", accept=PB, pb="CellSet"),
    dict(method="GET", path="/{P}t/k1,k3", accept=PB, pb="CellSet"),
    dict(method="GET", path="/{P}t/multiget?row=k1&row=k3", accept=PB, pb="CellSet"),
    dict(method="GET", path="/{P}t/*?startrow=k1&limit=3", accept=PB, pb="stream:CellSet"),
    dict(name="406 body", method="GET", path="/version/cluster", accept=PB),
    # protobuf of every other resource, and protobuf request bodies where HBase reads them
    dict(method="GET", path="/{P}t/schema", accept=PB, pb="TableSchema"),
    dict(method="GET", path="/", accept=PB, pb="TableList"),
    dict(method="GET", path="/{P}t/regions", accept=PB, pb="TableInfo"),
    dict(method="PUT", path="/{P}t/scanner", ctype=PB, save="pb1", compare="status",
         body=pbmsg("Scanner", {"startRow": "k1", "endRow": "k4", "batch": 4, "maxVersions": 1,
                             "columns": ["cf:a"]})),
    dict(method="GET", path="$pb1", accept=PB, pb="CellSet"),
    dict(method="GET", path="$pb1", accept=J),
    dict(method="DELETE", path="$pb1", compare="status"),
    dict(method="PUT", path="/{P}t/scanner", ctype=PB, save="pb2", compare="status",
         body=pbmsg("Scanner", {"filter": '{"type":"PrefixFilter","value":"' + b("k2") + '"}'})),
    dict(method="GET", path="$pb2", accept=J),
    dict(method="DELETE", path="$pb2", compare="status"),
    dict(method="PUT", path="/{P}p/schema", ctype=PB, compare="status",
         body=pbmsg("TableSchema", {"name": "{P}p", "columns": [
             {"name": "cf", "maxVersions": 2},
             {"name": "cg", "attrs": [{"name": "TTL", "value": "86400"}]}]})),
    dict(method="GET", path="/{P}p/schema", accept=PB, pb="TableSchema"),
    dict(method="GET", path="/{P}p/schema", accept=J),
    dict(method="POST", path="/{P}p/schema", ctype=PB, compare="status",
         body=pbmsg("TableSchema", {"name": "{P}p", "columns": [{"name": "ch", "compression": "NONE"}]})),
    dict(method="GET", path="/{P}p/schema", accept=PB, pb="TableSchema", comment="after a protobuf POST"),
    dict(method="PUT", path="/{P}p/r1", ctype=PB, body=pbmsg("CellSet", {"rows": [
        {"key": "r1", "values": [{"column": "cf:a", "timestamp": 5, "data": "one"}]},
        {"key": "r2", "values": [{"column": "cg:b", "data": "two"}]}]})),
    dict(method="GET", path="/{P}p/r1", accept=PB, pb="CellSet"),
    dict(method="DELETE", path="/{P}p/schema", compare="status"),
    dict(method="GET", path="/{P}t/schema", accept=T),
    dict(method="GET", path="/{P}t/regions", accept=X),
    dict(method="GET", path="/{P}t/multiget?row=k1&row=k2&v=2", accept=X),
    # versions and the cluster's status, every representation
    dict(method="GET", path="/version", accept=J, norm="version"),
    dict(method="GET", path="/version", accept=X, norm="version"),
    dict(method="GET", path="/version", accept=T, norm="version"),
    dict(method="GET", path="/version", accept=PB, pb="Version", norm="version"),
    dict(method="GET", path="/status/cluster", accept=J, norm="status"),
    dict(method="GET", path="/status/cluster", accept=X, norm="status"),
    dict(method="GET", path="/status/cluster", accept=T, norm="status"),
    dict(method="GET", path="/status/cluster", accept=PB, pb="StorageClusterStatus", norm="status"),
]

FILTERS = [
    {"type": "PrefixFilter", "value": b("k1")},
    {"type": "KeyOnlyFilter"},
    {"type": "FirstKeyOnlyFilter"},
    {"type": "PageFilter", "value": "2"},
    {"type": "ColumnPrefixFilter", "value": b("b")},
    {"type": "RowFilter", "op": "GREATER_OR_EQUAL", "comparator": {"type": "BinaryComparator", "value": b("k3")}},
    {"type": "QualifierFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b("a")}},
    {"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "SubstringComparator", "value": "v4"}},
    {"type": "FamilyFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b("cf")}},
    {"type": "RowFilter", "op": "EQUAL", "comparator": {"type": "RegexStringComparator", "value": "k[24]"}},
    {"type": "SingleColumnValueFilter", "family": b("cf"), "qualifier": b("a"), "op": "EQUAL",
     "comparator": {"type": "BinaryComparator", "value": b("v2")}, "ifMissing": True},
    {"type": "FilterList", "op": "MUST_PASS_ONE", "filters": [
        {"type": "PrefixFilter", "value": b("k0")}, {"type": "PrefixFilter", "value": b("k4")}]},
    {"type": "FilterList", "op": "MUST_PASS_ALL", "filters": [
        {"type": "QualifierFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b("a")}},
        {"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": {"type": "BinaryComparator", "value": b("v1")}}]},
    # the rest of HBase 2.6's FilterModel types and comparators
    {"type": "RandomRowFilter", "chance": 0.0},
    {"type": "RandomRowFilter", "chance": 1.0},
    {"type": "MultiRowRangeFilter", "ranges": [
        {"startRow": b("k0"), "startRowInclusive": True, "stopRow": b("k1"), "stopRowInclusive": True},
        {"startRow": b("k3"), "startRowInclusive": False, "stopRow": b("k9"), "stopRowInclusive": False}]},
    {"type": "MultiRowRangeFilter", "ranges": [{"startRow": b("k2"), "stopRow": b("k4")}]},
    {"type": "FuzzyRowFilter", "fuzzyKeys": [{"key": b("?3"), "mask": b(bytes([1, 0]))}]},
    {"type": "FuzzyRowFilter", "fuzzyKeys": [{"key": b("k?"), "mask": b(bytes([0, 1]))},
                                             {"key": b("x1"), "mask": b(bytes([0, 0]))}]},
    {"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "NullComparator"}},
    {"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": {"type": "NullComparator"}},
    {"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "BitComparator", "value": b(bytes([0, 1])), "op": "AND"}},
    {"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "BitComparator", "value": b(bytes([0, 1])), "op": "XOR"}},
    {"type": "RowFilter", "op": "LESS", "comparator": {"type": "BinaryPrefixComparator", "value": b("k2")}},
    {"type": "InclusiveStopFilter", "value": b("k2")},
    {"type": "ColumnRangeFilter", "minColumn": b("a"), "minColumnInclusive": False, "maxColumn": b("b"),
     "maxColumnInclusive": True},
    {"type": "ColumnPaginationFilter", "limit": 1, "offset": 1},
    {"type": "ColumnCountGetFilter", "limit": 1},
    {"type": "MultipleColumnPrefixFilter", "prefixes": [b("b"), b("a")]},
    {"type": "TimestampsFilter", "timestamps": [100]},
    {"type": "DependentColumnFilter", "family": b("cf"), "qualifier": b("a"), "dropDependentColumn": True,
     "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b("v3")}},
    {"type": "SingleColumnValueExcludeFilter", "family": b("cf"), "qualifier": b("a"), "op": "EQUAL",
     "comparator": {"type": "BinaryComparator", "value": b("v4")}},
    {"type": "SkipFilter", "filters": [
        {"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": {"type": "BinaryComparator", "value": b("v1")}}]},
    {"type": "WhileMatchFilter", "filters": [
        {"type": "RowFilter", "op": "LESS", "comparator": {"type": "BinaryComparator", "value": b("k2")}}]},
    {"type": "FilterList", "op": "MUST_PASS_ONE", "filters": []},
]

# ColumnValueFilter is not in HBase 2.6.1's REST filter model: its scanner PUT is 400 on both.
STEPS.append(dict(name="ColumnValueFilter scanner", method="PUT", path="/{P}t/scanner", ctype=J,
                  compare="status", body=scanner(filter=_json.dumps(
                      {"type": "ColumnValueFilter", "family": b("cf"), "qualifier": b("a"), "op": "EQUAL",
                       "comparator": {"type": "BinaryComparator", "value": b("v2")}}))))

# Filter models HBase refuses (400), each for a different reason.
BAD_FILTERS = [
    {"type": "NoSuchFilter"},
    {"type": "RandomRowFilter"},
    {"type": "ValueFilter", "op": "EQUAL", "comparator": {"type": "LongComparator", "value": b("x")}},
    {"type": "ValueFilter", "op": "SAME", "comparator": {"type": "NullComparator"}},
    {"type": "PageFilter", "value": "-1"},
    {"type": "MultiRowRangeFilter", "ranges": [{"startRow": b("k9"), "stopRow": b("k1")}]},
]

for i, f in enumerate(FILTERS):
    STEPS.append(dict(method="PUT", path="/{P}t/scanner", ctype=J,
                      body=scanner(filter=_json.dumps(f), maxVersions=1), save=f"f{i}",
                      compare="status", comment=f["type"]))
    STEPS.append(dict(method="GET", path=f"$f{i}", accept=J, comment=f["type"]))
    STEPS.append(dict(method="DELETE", path=f"$f{i}", compare="status"))

for f in BAD_FILTERS:
    STEPS.append(dict(method="PUT", path="/{P}t/scanner", ctype=J, body=scanner(filter=_json.dumps(f)),
                      compare="status", comment="bad " + _json.dumps(f)[:60]))

STEPS += [
    # namespaces
    dict(method="POST", path="/namespaces/{P}ns", compare="status"),
    dict(method="GET", path="/namespaces/{P}ns", accept=J),
    dict(method="GET", path="/namespaces/{P}ns", accept=X),
    dict(method="POST", path="/namespaces/{P}ns", compare="status", comment="exists already"),
    dict(method="PUT", path="/namespaces/{P}ns", ctype=J, body={"properties": {"owner": "ops"}},
         compare="status"),
    dict(method="GET", path="/namespaces/{P}ns", accept=J),
    dict(method="GET", path="/namespaces/{P}ns", accept=X),
    dict(method="GET", path="/namespaces", accept=J),
    dict(method="GET", path="/namespaces", accept=X),
    dict(method="GET", path="/namespaces/{P}ns/tables", accept=J),
    dict(method="GET", path="/namespaces", accept=PB, pb="Namespaces"),
    dict(method="GET", path="/namespaces/{P}ns", accept=PB, pb="NamespaceProperties"),
    dict(method="PUT", path="/namespaces/{P}ns", ctype=PB, compare="status",
         body=pbmsg("NamespaceProperties", {"props": [{"key": "team", "value": "data"}]})),
    dict(method="GET", path="/namespaces/{P}ns", accept=PB, pb="NamespaceProperties", comment="after a protobuf PUT"),
    dict(method="POST", path="/namespaces/{P}pbns", ctype=PB, compare="status",
         body=pbmsg("NamespaceProperties", {"props": [{"key": "k", "value": "v"}]})),
    dict(method="GET", path="/namespaces/{P}pbns", accept=J),
    dict(method="DELETE", path="/namespaces/{P}pbns", compare="status"),
    dict(method="PUT", path="/{P}ns:t2/schema", ctype=J, compare="status",
         body={"name": "{P}ns:t2", "ColumnSchema": [{"name": "cf"}]}),
    dict(method="GET", path="/namespaces/{P}ns/tables", accept=X),
    dict(method="GET", path="/namespaces/{P}ns/tables", accept=T),
    dict(method="GET", path="/namespaces/{P}ns/tables", accept=PB, pb="TableList"),
    dict(method="GET", path="/{P}ns:t2/schema", accept=X),
    dict(method="DELETE", path="/namespaces/{P}ns", compare="status", comment="not empty"),
    dict(method="DELETE", path="/{P}ns:t2/schema", compare="status"),
    dict(name="missing namespace", method="GET", path="/namespaces/{P}none", accept=J, compare="status"),
    dict(method="DELETE", path="/namespaces/{P}ns", compare="status"),
    # bad input
    dict(name="bad base64", method="PUT", path="/{P}t/r9", ctype=J, body='{"Row":[{"key":"!!!"}]}',
         compare="status"),
    dict(name="malformed JSON", method="PUT", path="/{P}t/r9", ctype=J, body="{not json", compare="status"),
    dict(method="PUT", path="/{P}t/r9", ctype="image/png", body="x", compare="status"),
    dict(method="GET", path="/{P}t/k1", accept="image/png", compare="status"),
    dict(method="PUT", path="/{P}t/r9", ctype=J, body=rows(("r9", [cell("nofamily:q", "v")])), compare="status"),
    dict(method="PUT", path="/{P}t/r9", ctype=J, body=rows(("r9", [cell("noqualifier", "v")]))),
    # the end of the table
    dict(method="PUT", path="/{P}t/schema", ctype=J, body=SCHEMA, compare="status", comment="replace"),
    dict(method="GET", path="/{P}t/schema", accept=J, comment="after PUT replaced it"),
    dict(method="DELETE", path="/{P}t/schema", compare="status"),
    dict(method="GET", path="/{P}t/schema", accept=J),
    dict(method="DELETE", path="/{P}t/schema", compare="status"),
]

# HBase 2.6's behaviours of issue #38 (items 12-19; docs/rest.md), on tables of their own.
KS = {"name": "{P}k", "ColumnSchema": [{"name": "a"}, {"name": "b"}]}
GZ = gzip.compress(_json.dumps(rows(("gz", [cell("a:gz", "gzipped", 100)]))).encode())
STEPS += [
    dict(method="PUT", path="/{P}k/schema", ctype=J, body=KS, compare="status"),
    dict(method="PUT", path="/{P}k/fakerow", ctype=J, body=rows(
        ("row1", [cell("a:q1", "v1", 100), cell("b:x", "bx", 100)]),
        ("row2", [cell("a:q1", "v2", 100), cell("b:", "empty", 100), cell("b:q2", "bq2", 100)]),
        ("k/\xff", [cell("a:q1", "odd", 100)]))),
    # 12: row keys and columns in base64, by query parameter or header, on every row path
    dict(method="GET", path="/{P}k/cm93MQ/YTpxMQ?e=b64", accept=J),
    dict(method="GET", path="/{P}k/cm93MQ", accept=X, extra={"Encoding": "b64"}),
    dict(method="GET", path="/{P}k/" + base64.urlsafe_b64encode("k/\xff".encode()).decode() + "?e=base64url",
         accept=J),
    dict(method="GET", path="/{P}k/cm93Mg==/Yjo=?e=b64basic", accept=J),
    dict(method="GET", path="/{P}k/cm93MQ,cm93Mw?e=b64", accept=J, comment="a range"),
    dict(method="GET", path="/{P}k/cm93Mg/YjpxMg?e=b64", accept=O),
    dict(method="GET", path="/{P}k/multiget/?row=cm93MQ&row=cm93Mg&e=b64", accept=J),
    dict(method="GET", path="/{P}k/multiget?row=cm93MQ&row=cm93Mg", accept=PB, pb="CellSet",
         extra={"Encoding": "b64"}),
    dict(name="unknown key encoding", method="GET", path="/{P}k/cm93MQ?e=rot13", accept=J, compare="status"),
    # 13: a multi-get's columns in its path (never base64)
    dict(method="GET", path="/{P}k/multiget/a:q1,b?row=row1&row=row2", accept=J),
    dict(method="GET", path="/{P}k/multiget/b:?row=row1&row=row2", accept=X),
    dict(method="GET", path="/{P}k/multiget/b:?row=cm93MQ&row=cm93Mg&e=b64", accept=J),
    # 14: gzip request bodies decoded, answers compressed for a client that asks
    dict(method="PUT", path="/{P}k/gz", ctype=J, body=GZ, extra={"Content-Encoding": "gzip"}),
    dict(method="GET", path="/{P}k/gz/a:gz", accept=O),
    dict(method="GET", path="/{P}k/gz", accept=J, extra={"Accept-Encoding": "gzip"}),
    dict(method="GET", path="/{P}k/*", accept=X, extra={"Accept-Encoding": "gzip"}),
    dict(method="GET", path="/{P}k/gz/a:gz", accept=O, extra={"Accept-Encoding": "gzip"}, comment="raw, gzip"),
    dict(method="GET", path="/{P}k/nope", accept=J, extra={"Accept-Encoding": "gzip"}),
    dict(name="deflate body", method="PUT", path="/{P}k/df/a:x", ctype=O, body=zlib.compress(b"raw"),
         extra={"Content-Encoding": "deflate"}, compare="status"),
    # 15: `family:` is the empty qualifier alone, in scans as in gets
    dict(method="GET", path="/{P}k/*?column=b:", accept=J),
    dict(method="GET", path="/{P}k/*?column=b", accept=J),
    dict(method="GET", path="/{P}k/row2/b:", accept=J),
    dict(method="PUT", path="/{P}k/scanner", ctype=J, body=scanner(column=[b("b:")]), save="e1", compare="status"),
    dict(method="GET", path="$e1", accept=J),
    dict(method="DELETE", path="$e1", compare="status"),
    # 16: a scanner whose table was disabled after it opened (caching 1: HBase's client reads
    # each row from the server, so the disabled table is seen at the next read)
    dict(method="PUT", path="/{P}d/schema", ctype=J, body={"name": "{P}d", "ColumnSchema": [{"name": "cf"}]},
         compare="status"),
    dict(method="PUT", path="/{P}d/fakerow", ctype=J, body=rows(
        *[(f"r{i}", [cell("cf:a", f"v{i}", 100)]) for i in range(3)])),
    dict(method="PUT", path="/{P}d/scanner", ctype=J, body=scanner(batch=1, caching=1), save="d1",
         compare="status"),
    dict(method="GET", path="$d1", accept=J),
    dict(thrift2=["disableTable", "{P}d"]),
    dict(method="GET", path="$d1", accept=J, line2=True, comment="disabled"),
    dict(method="GET", path="$d1", accept=J, comment="after 410"),
    dict(method="DELETE", path="/{P}d/schema", compare="status"),
    # 17: header names as HBase's Jetty writes them
    dict(method="GET", path="/{P}k/gz/a:gz", accept=O, header_names=["X-Timestamp", "Content-Type"],
         comment="header names"),
    # 18: DELETE on a namespace's tables acts on the namespace; an illegal table in a scanner
    dict(method="POST", path="/namespaces/{P}ns2", compare="status"),
    dict(method="PUT", path="/{P}ns2:t/schema", ctype=J, body={"name": "{P}ns2:t", "ColumnSchema": [{"name": "cf"}]},
         compare="status"),
    dict(method="DELETE", path="/namespaces/{P}ns2/tables", line2=True),
    dict(method="DELETE", path="/namespaces/{P}ns2", line2=True),
    dict(method="PUT", path="/*/scanner", ctype=J, body={}),
    dict(method="PUT", path="/namespaces/{P}ns2/tables", ctype=J, body={"properties": {"k": "v"}}),
    dict(method="GET", path="/namespaces/{P}ns2", accept=J, comment="altered through /tables"),
    dict(method="DELETE", path="/{P}ns2:t/schema", compare="status"),
    dict(method="DELETE", path="/namespaces/{P}ns2/tables", comment="empty now"),
    # 19: HBase's statuses and exceptions for refusals
    dict(method="DELETE", path="/namespaces/default", line2=True),
    dict(method="DELETE", path="/namespaces/hbase", line2=True),
    dict(method="DELETE", path="/namespaces/{P}none"),
    dict(method="PUT", path="/namespaces/{P}none", ctype=J, body={"properties": {}}),
    dict(method="POST", path="/namespaces/default", ctype=J, body={"properties": {}}),
    dict(method="POST", path="/{P}k/n?check=increment", ctype=J,
         body=rows(("n", [cell("a:n", str(2**63 - 2))]))),
    dict(method="POST", path="/{P}k/n?check=increment", ctype=J, body=rows(("n", [cell("a:n", "5")]))),
    dict(method="GET", path="/{P}k/n/a:n", accept=O, comment="wrapped past i64::MAX"),
    dict(name="NUL in XML", method="PUT", path="/{P}k/x", ctype=X, compare="status",
         body='<CellSet><Row key="' + b("x") + '"><Cell column="' + b("a:x") + '">' + b("v") + "\0</Cell></Row></CellSet>"),
    dict(method="GET", path="/{P}k/x", accept=J, comment="nothing stored"),
    # 7: HBase's own catalog table is there: replacing its schema is refused
    dict(method="PUT", path="/hbase:meta/schema", ctype=J, line2=True,
         body={"name": "hbase:meta", "ColumnSchema": [{"name": "cf"}]}),
    dict(method="DELETE", path="/{P}k/schema", compare="status"),
]
