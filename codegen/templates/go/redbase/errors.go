package redbase

import (
	"errors"
	"fmt"
)

// Sentinel errors: every error the SDK returns wraps one of them, so callers can test the
// kind with errors.Is and get the details with errors.As (*KeyError, *ValueError,
// *ServerError).
var (
	// ErrKeyEncoding: a key value the table's key design refuses (too wide, outside its
	// charset, a negative reverse timestamp, ...), or bytes that are not a key of the table.
	ErrKeyEncoding = errors.New("redbase: key encoding")
	// ErrValueEncoding: a value that does not fit its column type, or cell bytes that are
	// not of that type.
	ErrValueEncoding = errors.New("redbase: value encoding")
	// ErrNotFound: Get found no cell for the row.
	ErrNotFound = errors.New("redbase: row not found")
	// ErrServer: the gateway answered with an error (TIOError, TIllegalArgument) or the
	// connection failed.
	ErrServer = errors.New("redbase: server")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("redbase: client closed")
)

// KeyError describes a refused key value or undecodable key bytes.
type KeyError struct {
	Component string // the key component concerned, "" for the key as a whole
	Reason    string
}

func (e *KeyError) Error() string {
	if e.Component == "" {
		return "redbase: key: " + e.Reason
	}
	return fmt.Sprintf("redbase: key component %s: %s", e.Component, e.Reason)
}

// Unwrap makes errors.Is(err, ErrKeyEncoding) true.
func (e *KeyError) Unwrap() error { return ErrKeyEncoding }

func keyErr(component, format string, args ...any) error {
	return &KeyError{Component: component, Reason: fmt.Sprintf(format, args...)}
}

// ValueError describes a value that cannot be written or read as its column type.
type ValueError struct {
	Field  string // the column's field name, when known
	Type   string // the schema type: "i64", "json", ...
	Reason string
}

func (e *ValueError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("redbase: column %s: %s value: %s", e.Field, e.Type, e.Reason)
	}
	return fmt.Sprintf("redbase: %s value: %s", e.Type, e.Reason)
}

// Unwrap makes errors.Is(err, ErrValueEncoding) true.
func (e *ValueError) Unwrap() error { return ErrValueEncoding }

func valueErr(ty, format string, args ...any) error {
	return &ValueError{Type: ty, Reason: fmt.Sprintf(format, args...)}
}

// ServerError is a failed Thrift2 call. Err is the Thrift error: *hbase2.TIOError or
// *hbase2.TIllegalArgument from the server, or a transport or context error.
type ServerError struct {
	Op      string // the THBaseService method
	Message string // the server's message, or the failure's
	Err     error
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("redbase: %s: %s", e.Op, e.Message)
}

// Unwrap gives both ErrServer and the underlying error to errors.Is and errors.As.
func (e *ServerError) Unwrap() []error { return []error{ErrServer, e.Err} }

var errNoValue = errors.New("the increment returned no value")
