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
	// ErrClosed: the client (or a Writer) was closed.
	ErrClosed = errors.New("redbase: client closed")
	// ErrFilter: a scan filter that cannot be rendered (*FilterError).
	ErrFilter = errors.New("redbase: filter")
	// ErrBatch: some rows of a batch write failed (*BatchError lists them); the others
	// were written.
	ErrBatch = errors.New("redbase: batch")
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

// RowFailure is one row of a batch that the server refused.
type RowFailure struct {
	Index   int    // the row's position in the input
	Row     []byte // the encoded row key
	Message string // the server's message
	Err     error  // the *ServerError of the row's own call
}

// BatchError lists every row of a batch write that failed; the other rows were written.
// errors.Is(err, ErrBatch) and errors.Is(err, ErrServer) hold.
type BatchError struct {
	Op       string // putMultiple, deleteMultiple or increment
	Failures []RowFailure
}

func (e *BatchError) Error() string {
	msg := fmt.Sprintf("redbase: %s: %d row(s) failed", e.Op, len(e.Failures))
	for i, f := range e.Failures {
		if i == 3 {
			msg += fmt.Sprintf("; and %d more", len(e.Failures)-3)
			break
		}
		msg += fmt.Sprintf("; row %d (%q): %s", f.Index, f.Row, f.Message)
	}
	return msg
}

// Unwrap gives ErrBatch and ErrServer to errors.Is.
func (e *BatchError) Unwrap() []error { return []error{ErrBatch, ErrServer} }
