"""Runtime shared by every table module of a generated SDK: key encodings (`keys`), value
encodings and column descriptors (`values`), the Thrift2 connection and table plumbing
(`client`)."""
