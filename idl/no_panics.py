#!/usr/bin/env python3
"""Edits the Thrift compiler's Rust output so that no bytes from the wire can reach a panic.

The Rust generator reads a union by counting the fields it saw, unknown ones included, and
then `expect`s that it built a value: a union holding only a field this IDL does not know
panics. Here that `expect` becomes the protocol error the generator already uses for an
empty union. The other `expect`s in the output follow presence checks that return errors.

usage: no_panics.py RUST_FILE
"""
import re
import sys


def main():
    path = sys.argv[1]
    text = open(path).read()
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
