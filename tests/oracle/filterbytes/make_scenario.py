"""Writes tests/oracle/scenarios/t2_filter_bytes.json from filters.tsv (FilterBytes.java's output).

Every filter in filters.tsv is sent as TScan.filterBytes (a full-table scan, maxVersions 3) and as
TGet.filterBytes (a get of one row chosen to suit the filter); a few more steps cover reversed
scans, openScanner paging, exists/getMultiple, and filterBytes together with filterString. The
"malformed: ..." entries go through scan, get and openScanner with "error_type_only": diff.py
compares only the exception's type (HBase 2.6.1: TIOError everywhere; canRetry true when the
protobuf does not parse, false for an unknown or unusable class name), never its message.

Run by generate.sh; python3 tests/oracle/filterbytes/make_scenario.py works alone too.
"""

import json
from decimal import Decimal
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE.parent / "scenarios" / "t2_filter_bytes.json"
T = "${P}fb"


def hexval(h):
    return {"hex": h}


def cell(f, q, v, ts=10):
    return {"family": f, "qualifier": q, "value": v, "timestamp": ts}


def big_decimal(text):
    """HBase's Bytes.toBytes(new BigDecimal(text)): the scale as a 4-byte big-endian int, then
    the unscaled value's two's-complement bytes as BigInteger.toByteArray gives them."""
    d = Decimal(text)
    sign, digits, exponent = d.as_tuple()
    unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
    bits = (~unscaled).bit_length() if unscaled < 0 else unscaled.bit_length()
    body = unscaled.to_bytes(bits // 8 + 1, "big", signed=True)
    return {"hex": (-exponent).to_bytes(4, "big", signed=True).hex() + body.hex()}


# Rows: fruit names in cf:a (r01 has an older version "apricot" at ts 5 under "apple" at 10),
# cf:b at ts 20 in r01 (for TimestampsFilter and DependentColumnFilter), 8-byte longs in cf:c
# (LongComparator), one-byte values in cf:m (BitComparator), a two-line value in cf:d (regex
# DOTALL/MULTILINE), q1..q3 and an empty value in r03, keys k_abc/k_abd/k_xbc for
# Prefix/Fuzzy/MultiRowRange filters, r04 with family cg only (filterIfMissing), and decimals
# (Bytes.toBytes(BigDecimal)) in cf:n for BigDecimalComparator: 1.50 and 1.5 are equal numbers, and
# r03 has 1E+3 as an older version (the first rows keep at most two cells in cf, see
# ColumnCountGetFilter in docs/compatibility.md).
ROWS = [
    {"row": "k_abc", "columnValues": [cell("cf", "a", "kiwi"), cell("cf", "b", "kumquat")]},
    {"row": "k_abd", "columnValues": [cell("cf", "a", "kale"), cell("cf", "n", big_decimal("0.000"))]},
    {"row": "k_xbc", "columnValues": [cell("cf", "a", "kelp"), cell("cg", "x", "x")]},
    {"row": "r01", "columnValues": [cell("cf", "a", "apricot", 5), cell("cf", "a", "apple"), cell("cf", "b", "banana", 20),
                                    cell("cf", "c", {"long": 5}), cell("cf", "m", {"hex": "0f"}), cell("cf", "n", big_decimal("1.50")),
                                    cell("cg", "x", "xylophone")]},
    {"row": "r02", "columnValues": [cell("cf", "a", "Avocado"), cell("cf", "b", "blueberry"), cell("cf", "c", {"long": 42}),
                                    cell("cf", "d", "dog\nLINE2"), cell("cf", "m", {"hex": "f0"}), cell("cf", "n", big_decimal("-3")),
                                    cell("cg", "y", "yak")]},
    {"row": "r03", "columnValues": [cell("cf", "a", "cherry"), cell("cf", "c", {"long": -1}), cell("cf", "e", ""),
                                    cell("cf", "m", {"hex": "ff"}), cell("cf", "n", big_decimal("1E+3"), 5),
                                    cell("cf", "n", big_decimal("1.5")), cell("cf", "q1", "one"),
                                    cell("cf", "q2", "two"), cell("cf", "q3", "three")]},
    {"row": "r04", "columnValues": [cell("cg", "x", "only cg")]},
]

REVERSED = {"PrefixFilter(k_ab)", "InclusiveStopFilter(r02)", "PageFilter(2)", "WhileMatchFilter(RowFilter < r02)",
            "MultiRowRangeFilter([k_, k_b), [r02, r03])", "FuzzyRowFilter(k_?bc)", "RowFilter(<, binary r02)",
            "RandomRowFilter(1.0)", "RowFilter(=, BinaryComponentComparator ab at 2)"}


def only_column(name):
    """Filters named "... on cf:X" compare every value they see in a way that fails HBase's scan on
    the table's other values (too short to be a decimal, or to hold the component): their scans
    and gets read that column only."""
    head, sep, column = name.rpartition(" on ")
    if not sep or not column.startswith("cf:"):
        return {}
    return {"columns": [{"family": "cf", "qualifier": column[3:]}]}


def get_row(name):
    if "BinaryComponentComparator ab" in name:
        return "k_abc"
    if name.startswith(("Column", "MultipleColumn", "QualifierFilter")) and not name.startswith("ColumnValueFilter"):
        return "r03"
    if name.startswith(("FuzzyRowFilter", "MultiRowRangeFilter", "PrefixFilter")):
        return "k_abc"
    return "r01"


def main():
    filters = []
    for line in (HERE / "filters.tsv").read_text().splitlines():
        name, _, h = line.partition("\t")
        filters.append((name, h))
    by_name = dict(filters)
    steps = [
        {"name": "create", "service": "thrift2", "call": "createTable",
         "args": {"desc": {"tableName": {"qualifier": T}, "columns": [{"name": "cf", "maxVersions": 3}, {"name": "cg", "maxVersions": 3}]}}},
        {"name": "put rows", "service": "thrift2", "call": "putMultiple", "args": {"table": T, "tputs": ROWS}},
        {"name": "scan without filter", "service": "thrift2", "call": "getScannerResults",
         "args": {"table": T, "tscan": {"maxVersions": 3}, "numRows": 100}},
    ]
    for name, h in filters:
        if name.startswith("malformed: "):
            continue
        only = only_column(name)
        steps.append({"name": f"scan {name}", "service": "thrift2", "call": "getScannerResults",
                      "args": {"table": T, "tscan": {"maxVersions": 3, "filterBytes": hexval(h), **only}, "numRows": 100}})
        if name in REVERSED:
            steps.append({"name": f"reversed scan {name}", "service": "thrift2", "call": "getScannerResults",
                          "args": {"table": T, "tscan": {"maxVersions": 3, "reversed": True, "filterBytes": hexval(h), **only},
                                   "numRows": 100}})
        row = get_row(name)
        steps.append({"name": f"get {row} {name}", "service": "thrift2", "call": "get",
                      "args": {"table": T, "tget": {"row": row, "maxVersions": 3, "filterBytes": hexval(h), **only}}})
    # filters together with other read options
    combos = [
        ("SingleColumnValueFilter(cf:a = apple)", {"columns": [{"family": "cf", "qualifier": "b"}]}, "columns cf:b (the tested column is not read)"),
        ("SingleColumnValueFilter(cf:a = apple, filterIfMissing)", {"columns": [{"family": "cf", "qualifier": "b"}]}, "columns cf:b (the tested column is not read)"),
        ("SingleColumnValueExcludeFilter(cf:a = apple)", {"columns": [{"family": "cf"}]}, "columns cf"),
        ("DependentColumnFilter(cf:a)", {"columns": [{"family": "cf", "qualifier": "b"}, {"family": "cf", "qualifier": "c"}]}, "columns cf:b, cf:c"),
        ("TimestampsFilter(5, 20)", {"timeRange": {"minStamp": 6, "maxStamp": 100}}, "timeRange [6, 100)"),
        ("ColumnPaginationFilter(limit 2, offset 1)", {"maxVersions": 1, "columns": [{"family": "cf"}]}, "maxVersions 1, columns cf"),
        ("ColumnCountGetFilter(2)", {"maxVersions": 1}, "maxVersions 1"),
        ("KeyOnlyFilter(lenAsVal)", {"columns": [{"family": "cg"}], "startRow": "r", "stopRow": "s"}, "columns cg, rows r..s"),
        ("FirstKeyOnlyFilter", {"columns": [{"family": "cg"}]}, "columns cg"),
        ("ValueFilter(=, substring AN)", {"maxVersions": 1, "limit": 1}, "limit 1"),
    ]
    for name, extra, label in combos:
        tscan = {"maxVersions": 3, "filterBytes": hexval(by_name[name])}
        tscan.update(extra)
        steps.append({"name": f"scan {name} with {label}", "service": "thrift2", "call": "getScannerResults",
                      "args": {"table": T, "tscan": tscan, "numRows": 100}})
    steps.append({"name": "get r01 SingleColumnValueFilter(cf:a = apple, filterIfMissing) with columns cf:b",
                  "service": "thrift2", "call": "get",
                  "args": {"table": T, "tget": {"row": "r01", "columns": [{"family": "cf", "qualifier": "b"}],
                                                "filterBytes": hexval(by_name["SingleColumnValueFilter(cf:a = apple, filterIfMissing)"])}}})
    page = by_name["PageFilter(2)"]
    steps += [
        {"name": "openScanner PageFilter(2) caching 1", "service": "thrift2", "call": "openScanner",
         "args": {"table": T, "tscan": {"caching": 1, "filterBytes": hexval(page)}}, "save": "s1"},
        {"name": "getScannerRows 1", "service": "thrift2", "call": "getScannerRows", "args": {"scannerId": "$s1", "numRows": 1}},
        {"name": "getScannerRows rest", "service": "thrift2", "call": "getScannerRows", "args": {"scannerId": "$s1", "numRows": 10}},
        {"name": "closeScanner", "service": "thrift2", "call": "closeScanner", "args": {"scannerId": "$s1"}},
        {"name": "filterBytes wins over filterString", "service": "thrift2", "call": "getScannerResults",
         "args": {"table": T, "tscan": {"filterString": "PrefixFilter('zzz')", "filterBytes": hexval(by_name["KeyOnlyFilter"])}, "numRows": 100}},
        {"name": "get: filterBytes wins over filterString", "service": "thrift2", "call": "get",
         "args": {"table": T, "tget": {"row": "r01", "filterString": "PrefixFilter('zzz')", "filterBytes": hexval(by_name["KeyOnlyFilter"])}}},
        {"name": "exists with a RowFilter that rejects the row", "service": "thrift2", "call": "exists",
         "args": {"table": T, "tget": {"row": "r01", "filterBytes": hexval(by_name["RowFilter(=, binary r02)"])}}},
        {"name": "exists with a RowFilter that accepts the row", "service": "thrift2", "call": "exists",
         "args": {"table": T, "tget": {"row": "r02", "filterBytes": hexval(by_name["RowFilter(=, binary r02)"])}}},
        {"name": "getMultiple, a filter per get", "service": "thrift2", "call": "getMultiple",
         "args": {"table": T, "tgets": [
             {"row": "r01", "filterBytes": hexval(by_name["KeyOnlyFilter(lenAsVal)"])},
             {"row": "r02", "filterBytes": hexval(by_name["FamilyFilter(=, binary cg)"])},
             {"row": "r03", "filterBytes": hexval(by_name["ColumnPaginationFilter(limit 2, offset 1)"])},
             {"row": "r01", "filterBytes": hexval(by_name["RowFilter(=, binary r02)"])}]}},
    ]
    for name, h in filters:
        if not name.startswith("malformed: "):
            continue
        steps += [
            {"name": f"scan {name}", "service": "thrift2", "call": "getScannerResults",
             "args": {"table": T, "tscan": {"filterBytes": hexval(h)}, "numRows": 100}, "error_type_only": True},
            {"name": f"get {name}", "service": "thrift2", "call": "get",
             "args": {"table": T, "tget": {"row": "r01", "filterBytes": hexval(h)}}, "error_type_only": True},
            {"name": f"openScanner {name}", "service": "thrift2", "call": "openScanner",
             "args": {"table": T, "tscan": {"filterBytes": hexval(h)}}, "ignore_result": True, "error_type_only": True},
        ]
    comment = ("TGet.filterBytes / TScan.filterBytes as HBase's Java Thrift2 client sends them: protobuf "
               "FilterProtos.Filter{name, serialized_filter} with ComparatorProtos.Comparator inside, generated "
               "by HBase 2.6.1's own classes (tests/oracle/filterbytes: FilterBytes.java -> filters.tsv -> "
               "make_scenario.py; do not edit by hand). Every filter and comparator, each compare operator, "
               "regex flags, nested FilterLists, and malformed bytes (errors compared by exception type only)")
    lines = ["{", f"  \"comment\": {json.dumps(comment)},", "  \"steps\": ["]
    for i, s in enumerate(steps):
        lines.append("    " + json.dumps(s) + ("," if i < len(steps) - 1 else ""))
    lines += ["  ]", "}"]
    OUT.write_text("\n".join(lines) + "\n")
    print(f"wrote {OUT} ({len(steps)} steps)")


if __name__ == "__main__":
    main()
