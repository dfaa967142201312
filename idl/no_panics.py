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


def main():
    path = sys.argv[1]
    text = open(path).read()
    text = check_wire_types(text)
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
