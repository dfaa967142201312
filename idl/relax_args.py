#!/usr/bin/env python3
"""Edits the Thrift compiler's Rust output so that method arguments are required only where
the IDL says `required`.

The Rust generator treats every argument of a service method as required. HBase's Java
servers read an absent argument of default requiredness as unset (happybase, for one, leaves
out arguments it sets to None, and Thrift2's checkAndPut leaves out `value` to mean "must not
exist"), so for those arguments the presence check is dropped and the type's default is used.

usage: relax_args.py IDL RUST_FILE
"""
import re
import sys


def optional_args(idl_text):
    """{(method, field id)} for arguments not declared `required` whose type has a default
    value (a struct with required fields has none: it stays required, and its absence is an
    error as in HBase, where the Java server fails on the null)."""
    text = re.sub(r"//[^\n]*", "", idl_text)
    no_default = {
        m.group(1)
        for m in re.finditer(r"(?:struct|union|exception)\s+(\w+)\s*{([^}]*)}", text)
        if "required" in m.group(2)
    }
    service = re.search(r"service\s+\w+\s*{(.*)}", text, re.S).group(1)
    out = set()
    for m in re.finditer(r"(\w+)\s*\(([^)]*)\)", service):
        method, args = m.group(1), m.group(2)
        for a in re.finditer(r"(\d+)\s*:\s*(required\s+)?([\w<>, ]+?)\s+\w+\s*(?:=[^,]*)?(?:,|$)", args):
            if not a.group(2) and a.group(3).strip() not in no_default:
                out.add((method, int(a.group(1))))
    return out


def main():
    idl, rust = sys.argv[1], sys.argv[2]
    relaxed = optional_args(open(idl).read())
    verify = re.compile(r'\s*verify_required_field_exists\("(\w+)Args\.\w+", &f_(\d+)\)\?;')
    lines = open(rust).read().split("\n")
    out, pending = [], set()
    for line in lines:
        m = verify.match(line)
        if m:
            struct, fid = m.group(1), int(m.group(2))
            # `HbaseGetRowArgs` -> `getRow`; `THBaseServiceCheckAndPutArgs` -> `checkAndPut`.
            for prefix in ("THBaseService", "Hbase"):
                if struct.startswith(prefix):
                    name = struct[len(prefix):]
                    break
            method = name[0].lower() + name[1:]
            if (method, fid) in relaxed:
                pending.add(fid)
                continue
        if pending:
            for fid in list(pending):
                needle = f'f_{fid}.expect("auto-generated code should have checked for presence of required fields")'
                if needle in line:
                    line = line.replace(needle, f"f_{fid}.unwrap_or_default()")
            if line.strip() == "};":
                pending.clear()
        out.append(line)
    open(rust, "w").write("\n".join(out))


if __name__ == "__main__":
    main()
