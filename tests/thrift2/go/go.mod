module redbase/tests/thrift2/go

go 1.18

// Pinned to match Debian's thrift compiler 0.17, which generates the client code.
require github.com/apache/thrift v0.17.0
