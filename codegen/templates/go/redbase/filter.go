package redbase

import "strconv"

// Filter is a server-side scan filter, rendered to HBase's filter language (the bytes sent as
// TScan.filterString), so the same filter works on redbase and on a real HBase. The zero
// Filter is no filter. Build one from a typed column (XColumns.Hits.Ge(5)), a key prefix
// (XKeys().UserID("dave").PrefixFilter()), the constructors below, AllOf and AnyOf.
type Filter struct {
	expr []byte
	err  error
	// keyOnly: the filter may empty cell values (KeyOnlyFilter), so rows are not decoded.
	keyOnly bool
}

// IsZero reports whether f is no filter.
func (f Filter) IsZero() bool { return f.expr == nil && f.err == nil }

// Bytes is the filter in HBase's filter language, or the error that made it invalid.
func (f Filter) Bytes() ([]byte, error) {
	if f.err != nil {
		return nil, f.err
	}
	return append([]byte(nil), f.expr...), nil
}

// String is the filter text (bytes that are not UTF-8 are shown as Go would quote them).
func (f Filter) String() string {
	if f.err != nil {
		return "invalid filter: " + f.err.Error()
	}
	return string(f.expr)
}

// FilterError is a filter that cannot be rendered (an empty AllOf, a value the column's
// codec refuses, a prefix of a salted key, ...).
type FilterError struct {
	Reason string
}

func (e *FilterError) Error() string { return "redbase: filter: " + e.Reason }

// Unwrap makes errors.Is(err, ErrFilter) true.
func (e *FilterError) Unwrap() error { return ErrFilter }

func filterErr(reason string) Filter { return Filter{err: &FilterError{Reason: reason}} }

// quote writes b as a filter-language literal: single quotes, each quote inside doubled, every
// other byte as it is.
func quote(out, b []byte) []byte {
	out = append(out, '\'')
	for _, c := range b {
		if c == '\'' {
			out = append(out, '\'')
		}
		out = append(out, c)
	}
	return append(out, '\'')
}

func filterCall(name string, args ...[]byte) Filter {
	out := append([]byte(name), '(')
	for i, a := range args {
		if i > 0 {
			out = append(out, ", "...)
		}
		out = append(out, a...)
	}
	return Filter{expr: append(out, ')')}
}

// CompareOp is a value comparison of SingleColumnValueFilter.
type CompareOp string

// The comparison operators, as the filter language spells them.
const (
	OpEq CompareOp = "="
	OpNe CompareOp = "!="
	OpLt CompareOp = "<"
	OpLe CompareOp = "<="
	OpGt CompareOp = ">"
	OpGe CompareOp = ">="
)

// ValueFilter keeps rows whose cell in family:qualifier compares to operand (the codec's
// bytes) by op; rows without the cell are dropped (filterIfMissing, latest version only).
func ValueFilter(family, qualifier []byte, op CompareOp, operand []byte) Filter {
	switch op {
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
	default:
		return filterErr("unknown comparison operator " + strconv.Quote(string(op)))
	}
	cmp := quote(nil, append([]byte("binary:"), operand...))
	return filterCall("SingleColumnValueFilter", quote(nil, family), quote(nil, qualifier), []byte(op), cmp,
		[]byte("true"), []byte("true"))
}

func (c Column[T]) compare(op CompareOp, v T) Filter {
	raw, err := c.Codec.Encode(v)
	if err != nil {
		return Filter{err: fieldErr(c.Field, err)}
	}
	return ValueFilter(c.Family, c.Qualifier, op, raw)
}

// Eq keeps rows whose cell in this column equals v (compared as the codec's bytes).
func (c Column[T]) Eq(v T) Filter { return c.compare(OpEq, v) }

// Ne keeps rows whose cell in this column differs from v.
func (c Column[T]) Ne(v T) Filter { return c.compare(OpNe, v) }

// Lt keeps rows whose cell in this column sorts before v's bytes (unsigned byte order, so for
// numbers only among non-negative values).
func (c Column[T]) Lt(v T) Filter { return c.compare(OpLt, v) }

// Le keeps rows whose cell sorts before or equal to v's bytes.
func (c Column[T]) Le(v T) Filter { return c.compare(OpLe, v) }

// Gt keeps rows whose cell sorts after v's bytes.
func (c Column[T]) Gt(v T) Filter { return c.compare(OpGt, v) }

// Ge keeps rows whose cell sorts after or equal to v's bytes.
func (c Column[T]) Ge(v T) Filter { return c.compare(OpGe, v) }

// RowPrefixFilter keeps rows whose key starts with prefix (prefer a table's
// XKeys()....PrefixFilter(), which encodes the components).
func RowPrefixFilter(prefix []byte) Filter { return filterCall("PrefixFilter", quote(nil, prefix)) }

// PageFilter stops each region's scan after n rows (a server-side page; ScanOptions.Limit
// bounds the whole scan).
func PageFilter(n int64) Filter {
	if n < 0 {
		return filterErr("a page size must not be negative, got " + strconv.FormatInt(n, 10))
	}
	return filterCall("PageFilter", []byte(strconv.FormatInt(n, 10)))
}

// KeyOnlyFilter returns every cell with an empty value.
// Typed rows of such a scan carry their keys and Cells (with empty values) but no Values.
func KeyOnlyFilter() Filter {
	f := filterCall("KeyOnlyFilter")
	f.keyOnly = true
	return f
}

// FirstKeyOnlyFilter returns only the first cell of each row.
func FirstKeyOnlyFilter() Filter { return filterCall("FirstKeyOnlyFilter") }

// TimestampsFilter keeps only cells written at one of ts (milliseconds).
func TimestampsFilter(ts ...int64) Filter {
	if len(ts) == 0 {
		return filterErr("TimestampsFilter needs at least one timestamp")
	}
	args := make([][]byte, len(ts))
	for i, t := range ts {
		if t < 0 {
			return filterErr("a timestamp must not be negative, got " + strconv.FormatInt(t, 10))
		}
		args[i] = []byte(strconv.FormatInt(t, 10))
	}
	return filterCall("TimestampsFilter", args...)
}

// ColumnPrefixFilter keeps only cells whose qualifier starts with prefix.
func ColumnPrefixFilter(prefix []byte) Filter {
	return filterCall("ColumnPrefixFilter", quote(nil, prefix))
}

func combine(name, word string, fs []Filter) Filter {
	if len(fs) == 0 {
		return filterErr(name + " needs at least one filter")
	}
	for _, f := range fs {
		if f.err != nil {
			return f
		}
		if f.expr == nil {
			return filterErr(name + " of the zero Filter (no filter)")
		}
	}
	if len(fs) == 1 {
		return fs[0]
	}
	var out []byte
	keyOnly := false
	for i, f := range fs {
		keyOnly = keyOnly || f.keyOnly
		if i > 0 {
			out = append(out, word...)
		}
		out = append(out, '(')
		out = append(out, f.expr...)
		out = append(out, ')')
	}
	return Filter{expr: out, keyOnly: keyOnly}
}

// AllOf keeps what every filter keeps: `(A) AND (B)`; one filter is itself.
func AllOf(fs ...Filter) Filter { return combine("AllOf", " AND ", fs) }

// AnyOf keeps what any filter keeps: `(A) OR (B)`; one filter is itself.
func AnyOf(fs ...Filter) Filter { return combine("AnyOf", " OR ", fs) }
