module redbase/tests/sdk_go

go 1.21

require (
	github.com/apache/thrift v0.17.0
	redbase.example/sdks/go v0.0.0
)

// The generated SDK under test, from this repository.
replace redbase.example/sdks/go => ../../sdks/go
