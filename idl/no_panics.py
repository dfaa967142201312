#!/usr/bin/env python3
"""Edits the Thrift compiler's Rust output so that no bytes from the wire can reach a panic or
be read as a type they are not.

The Rust generator reads a union by counting the fields it saw, unknown ones included, and
then `expect`s that it built a value: a union holding only a field this IDL does not know
panics. Here that `expect` becomes the protocol error the generator already uses for an
empty union. The other `expect`s in the output follow presence checks that return errors.

usage: no_panics.py RUST_FILE
"""
import re
import sys


# What each generated read call expects on the wire.
READ_TYPES = {
    "read_bytes": "String",
    "read_string": "String",
    "read_bool": "Bool",
    "read_i8": "I08",
    "read_i16": "I16",
    "read_i32": "I32",
    "read_i64": "I64",
    "read_double": "Double",
    "read_list_begin": "List",
    "read_set_begin": "Set",
    "read_map_begin": "Map",
}

ARM = re.compile(
    r"^(?P<indent> +)(?P<id>\d+) => \{\n"
    r" +let (?:val|list_ident|set_ident|map_ident) = "
    r"(?:i_prot\.(?P<call>read_\w+)\(\)|(?P<ty>\w+)::read_from_in_protocol\(i_prot\))\?;",
    re.M,
)


def check_wire_types(text):
    """Before each field's arm, an arm that skips the field when its wire type is not the one
    the IDL declares. The Rust generator matches on the field id alone, so a list sent where an
    i64 belongs was read as a list header from the i64's bytes (a 2^31-element allocation, the
    process aborted); Java's generated code skips such a field, and now so does ours."""
    enums = set(re.findall(r"^pub struct (\w+)\(pub i32\);", text, re.M))

    def arm(m):
        if m.group("call"):
            wire = READ_TYPES[m.group("call")]
        else:
            wire = "I32" if m.group("ty") in enums else "Struct"
        indent, fid = m.group("indent"), m.group("id")
        guard = (
            f"{indent}{fid} if field_ident.field_type != TType::{wire} => {{\n"
            f"{indent}  i_prot.skip(field_ident.field_type)?;\n"
            f"{indent}}},\n"
        )
        return guard + m.group(0)

    return ARM.sub(arm, text)


CONTAINER = re.compile(
    r"^(?P<indent> +)let (?P<kind>list|set|map)_ident = i_prot\.read_(?:list|set|map)_begin\(\)\?;\n"
    r" +let mut val: (?P<ty>.+?) = ",
    re.M,
)


def wire_of(rust_type, enums, aliases):
    t = rust_type.strip()
    t = aliases.get(t, t)
    if t in ("Vec<u8>", "String"):
        return "String"
    simple = {"bool": "Bool", "i8": "I08", "i16": "I16", "i32": "I32", "i64": "I64",
              "OrderedFloat<f64>": "Double"}
    if t in simple:
        return simple[t]
    if t.startswith("Vec<"):
        return "List"
    if t.startswith("BTreeSet<"):
        return "Set"
    if t.startswith("BTreeMap<"):
        return "Map"
    return "I32" if t in enums else "Struct"


def split_pair(inner):
    """`K, V` of a map type, split at the top-level comma."""
    depth = 0
    for i, ch in enumerate(inner):
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif ch == "," and depth == 0:
            return inner[:i], inner[i + 1:]
    raise ValueError(inner)


def check_element_types(text):
    """After each list, set or map header, a check that its element types are the IDL's. With
    the field guards this keeps the decoder reading exactly the structure the frame walker
    checked (a list declared to hold i64s but read as structs reserved 2^31 elements)."""
    enums = set(re.findall(r"^pub struct (\w+)\(pub i32\);", text, re.M))
    aliases = dict(re.findall(r"^pub type (\w+) = (.+);", text, re.M))

    def check(m):
        indent, kind, ty = m.group("indent"), m.group("kind"), m.group("ty")
        inner = ty[ty.index("<") + 1: ty.rindex(">")]
        err = (
            f"{indent}  return Err(thrift::Error::Protocol(ProtocolError::new("
            f"ProtocolErrorKind::InvalidData, \"{kind} elements of a type the IDL does not declare here\")));\n"
        )
        if kind == "map":
            k, v = split_pair(inner)
            kw, vw = wire_of(k, enums, aliases), wire_of(v, enums, aliases)
            cond = (f"map_ident.size > 0 && (map_ident.key_type != Some(TType::{kw}) "
                    f"|| map_ident.value_type != Some(TType::{vw}))")
        else:
            ew = wire_of(inner, enums, aliases)
            cond = f"{kind}_ident.size > 0 && {kind}_ident.element_type != TType::{ew}"
        header, rest = m.group(0).split("\n", 1)
        return f"{header}\n{indent}if {cond} {{\n{err}{indent}}}\n{rest}"

    return CONTAINER.sub(check, text)


def main():
    path = sys.argv[1]
    text = open(path).read()
    text = check_wire_types(text)
    text = check_element_types(text)
    pattern = re.compile(r'Ok\(ret\.expect\("return value should have been constructed"\)\)')
    replacement = (
        'ret.ok_or_else(|| thrift::Error::Protocol(ProtocolError::new('
        'ProtocolErrorKind::InvalidData, '
        '"received a union whose only field is unknown to this server")))'
    )
    text = pattern.sub(replacement, text)
    open(path, "w").write(text)


if __name__ == "__main__":
    main()
