package redbase

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Codec writes and reads one column type as Java HBase's Bytes does (docs/schema.md, "Value
// encodings").
type Codec[T any] struct {
	Type   string // the schema type
	Encode func(T) ([]byte, error)
	Decode func([]byte) (T, error)
}

func width(ty string, b []byte, n int) error {
	if len(b) != n {
		return valueErr(ty, "%d bytes expected, got %d", n, len(b))
	}
	return nil
}

// The codecs of the schema's value types.
var (
	StringCodec = Codec[string]{"string",
		func(v string) ([]byte, error) {
			if !utf8.ValidString(v) {
				return nil, valueErr("string", "not valid UTF-8")
			}
			return []byte(v), nil
		},
		func(b []byte) (string, error) {
			if !utf8.Valid(b) {
				return "", valueErr("string", "not valid UTF-8")
			}
			return string(b), nil
		}}
	BytesCodec = Codec[[]byte]{"bytes",
		func(v []byte) ([]byte, error) { return append([]byte{}, v...), nil },
		func(b []byte) ([]byte, error) { return append([]byte{}, b...), nil }}
	I32Codec = Codec[int32]{"i32",
		func(v int32) ([]byte, error) { return binary.BigEndian.AppendUint32(nil, uint32(v)), nil },
		func(b []byte) (int32, error) {
			if err := width("i32", b, 4); err != nil {
				return 0, err
			}
			return int32(binary.BigEndian.Uint32(b)), nil
		}}
	I64Codec         = longCodec("i64")
	TimestampMsCodec = longCodec("timestamp-ms")
	CounterCodec     = longCodec("counter")
	F32Codec         = Codec[float32]{"f32",
		func(v float32) ([]byte, error) { return binary.BigEndian.AppendUint32(nil, math.Float32bits(v)), nil },
		func(b []byte) (float32, error) {
			if err := width("f32", b, 4); err != nil {
				return 0, err
			}
			return math.Float32frombits(binary.BigEndian.Uint32(b)), nil
		}}
	F64Codec = Codec[float64]{"f64",
		func(v float64) ([]byte, error) { return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil },
		func(b []byte) (float64, error) {
			if err := width("f64", b, 8); err != nil {
				return 0, err
			}
			return math.Float64frombits(binary.BigEndian.Uint64(b)), nil
		}}
	BoolCodec = Codec[bool]{"bool",
		func(v bool) ([]byte, error) {
			if v {
				return []byte{0xFF}, nil
			}
			return []byte{0}, nil
		},
		func(b []byte) (bool, error) {
			if err := width("bool", b, 1); err != nil {
				return false, err
			}
			return b[0] != 0, nil
		}}
	// JSONCodec writes canonical JSON (compact, object keys sorted, non-ASCII unescaped,
	// numbers as written) and reads any valid JSON text.
	JSONCodec = Codec[JSON]{"json", CanonicalJSON,
		func(b []byte) (JSON, error) {
			if !json.Valid(b) {
				return nil, valueErr("json", "not JSON")
			}
			return append(JSON{}, b...), nil
		}}
)

func longCodec(ty string) Codec[int64] {
	return Codec[int64]{ty,
		func(v int64) ([]byte, error) { return binary.BigEndian.AppendUint64(nil, uint64(v)), nil },
		func(b []byte) (int64, error) {
			if err := width(ty, b, 8); err != nil {
				return 0, err
			}
			return int64(binary.BigEndian.Uint64(b)), nil
		}}
}

// Column is one fixed-qualifier column with its value codec.
type Column[T any] struct {
	Field     string // the schema field name
	Family    []byte
	Qualifier []byte
	Codec     Codec[T]
}

// Condition is what CheckAndPut compares: a column's cell equal to a value, or absent.
type Condition struct {
	Family, Qualifier []byte
	Value             []byte // nil: the cell must be absent
	err               error
}

// Is is the condition that the column holds v.
func (c Column[T]) Is(v T) Condition {
	raw, err := c.Codec.Encode(v)
	if raw == nil {
		raw = []byte{}
	}
	return Condition{Family: c.Family, Qualifier: c.Qualifier, Value: raw, err: err}
}

// IsAbsent is the condition that the row has no cell in the column.
func (c Column[T]) IsAbsent() Condition {
	return Condition{Family: c.Family, Qualifier: c.Qualifier}
}

// Err is the error of encoding the compared value, if any.
func (c Condition) Err() error { return c.err }

// Part is the type of a pattern qualifier's variable part.
type Part interface{ string | int32 | int64 }

// PatternColumn is the cells whose qualifier is Prefix + part + Suffix, read as a map from
// part to value (a schema qualifier such as `{period}`).
type PatternColumn[P Part, T any] struct {
	Field          string
	Family         []byte
	Prefix, Suffix []byte
	PartType       string // string, i32 or i64
	PartWidth      int    // zero-padding of integer parts; 0: none
	Codec          Codec[T]
}

// Qualifier returns the qualifier for part.
func (c PatternColumn[P, T]) Qualifier(part P) ([]byte, error) {
	text, err := c.PartText(part)
	if err != nil {
		return nil, err
	}
	q := append(append([]byte{}, c.Prefix...), text...)
	return append(q, c.Suffix...), nil
}

// PartText is the part as it appears in the qualifier.
func (c PatternColumn[P, T]) PartText(part P) (string, error) {
	switch p := any(part).(type) {
	case string:
		return p, nil
	case int32:
		return partInt(int64(p), c.PartWidth)
	case int64:
		return partInt(p, c.PartWidth)
	}
	return "", valueErr(c.PartType, "unsupported part type %T", part)
}

func partInt(v int64, w int) (string, error) {
	t := strconv.FormatInt(v, 10)
	if w == 0 {
		return t, nil
	}
	if v < 0 || len(t) > w {
		return "", valueErr("part", "%d does not fit %d zero-padded digits", v, w)
	}
	return strings.Repeat("0", w-len(t)) + t, nil
}

// Parse returns the part of a qualifier of this pattern; false if it is not one.
func (c PatternColumn[P, T]) Parse(qualifier []byte) (P, bool) {
	var zero P
	if len(qualifier) < len(c.Prefix)+len(c.Suffix) ||
		!bytes.HasPrefix(qualifier, c.Prefix) || !bytes.HasSuffix(qualifier, c.Suffix) {
		return zero, false
	}
	inner := string(qualifier[len(c.Prefix) : len(qualifier)-len(c.Suffix)])
	var out any
	switch any(zero).(type) {
	case string:
		if !utf8.ValidString(inner) {
			return zero, false
		}
		out = inner
	case int32, int64:
		digits := inner
		if c.PartWidth == 0 {
			digits = strings.TrimPrefix(inner, "-")
		}
		if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return zero, false
		}
		if c.PartWidth != 0 && len(inner) != c.PartWidth {
			return zero, false
		}
		bits := 64
		if c.PartType == "i32" {
			bits = 32
		}
		n, err := strconv.ParseInt(inner, 10, bits)
		if err != nil {
			return zero, false
		}
		if _, is32 := any(zero).(int32); is32 {
			out = int32(n)
		} else {
			out = n
		}
	}
	p, ok := out.(P)
	return p, ok
}

// JSON is a json column's value: a JSON text (written canonically, see CanonicalJSON).
type JSON = json.RawMessage

// Matches reports whether cell is this column's.
func (c Column[T]) Matches(cell Cell) bool {
	return bytes.Equal(cell.Family, c.Family) && bytes.Equal(cell.Qualifier, c.Qualifier)
}

// Match returns the part of cell's qualifier if the cell is one of this pattern's.
func (c PatternColumn[P, T]) Match(cell Cell) (P, bool) {
	if !bytes.Equal(cell.Family, c.Family) {
		var zero P
		return zero, false
	}
	return c.Parse(cell.Qualifier)
}

func fieldErr(field string, err error) error {
	var ve *ValueError
	if errors.As(err, &ve) && ve.Field == "" {
		ve.Field = field
	}
	return err
}

// AppendCell appends the cell of column c holding v.
func AppendCell[T any](out []Cell, c Column[T], v T) ([]Cell, error) {
	raw, err := c.Codec.Encode(v)
	if err != nil {
		return out, fieldErr(c.Field, err)
	}
	return append(out, Cell{Family: c.Family, Qualifier: c.Qualifier, Value: raw}), nil
}

// AppendPattern appends one cell per entry of m, in part order.
func AppendPattern[P Part, T any](out []Cell, c PatternColumn[P, T], m map[P]T) ([]Cell, error) {
	parts := make([]P, 0, len(m))
	for p := range m {
		parts = append(parts, p)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i] < parts[j] })
	for _, p := range parts {
		q, err := c.Qualifier(p)
		if err != nil {
			return out, fieldErr(c.Field, err)
		}
		raw, err := c.Codec.Encode(m[p])
		if err != nil {
			return out, fieldErr(c.Field, err)
		}
		out = append(out, Cell{Family: c.Family, Qualifier: q, Value: raw})
	}
	return out, nil
}

// Decode sets *dst to the value of raw.
func Decode[T any](dst *T, c Column[T], raw []byte) error {
	v, err := c.Codec.Decode(raw)
	if err != nil {
		return fieldErr(c.Field, err)
	}
	*dst = v
	return nil
}

// DecodePtr sets *dst to a pointer to the value of raw.
func DecodePtr[T any](dst **T, c Column[T], raw []byte) error {
	v, err := c.Codec.Decode(raw)
	if err != nil {
		return fieldErr(c.Field, err)
	}
	*dst = &v
	return nil
}

// DecodePart adds cell's part and value to *dst.
func DecodePart[P Part, T any](dst *map[P]T, c PatternColumn[P, T], cell Cell) error {
	part, ok := c.Match(cell)
	if !ok {
		return nil
	}
	v, err := c.Codec.Decode(cell.Value)
	if err != nil {
		return fieldErr(c.Field, err)
	}
	if *dst == nil {
		*dst = map[P]T{}
	}
	(*dst)[part] = v
	return nil
}
