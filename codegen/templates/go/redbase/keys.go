package redbase

import (
	"bytes"
	"crypto/md5"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Component is one row-key component as the schema declares it (docs/schema.md, "Row key").
// Values are string, []byte, int32 (i32), int64 (i64, timestamp-ms), float32 or float64.
type Component struct {
	Name             string
	Type             string // string, bytes, i32, i64, f32, f64, timestamp-ms
	Width            int    // 0: none
	Charset          string // any, alnum, word, hex, digits
	Escape           bool
	Desc             bool
	Reverse          string // "", "chars" or "segments"
	ReverseTimestamp bool
	AllowEmpty       bool // an empty string or []byte is a value, not a forgotten field
	Kept             bool
}

// HashSpec is the MD5 prefix of some components: N hex characters or N raw bytes.
type HashSpec struct {
	Components []int  // indexes into KeySpec.Components, in hashing order
	Form       string // hex_chars or bytes
	N          int
	Keep       bool
}

// SaltSpec is a salt of Buckets buckets: one byte, or one character of Alphabet.
type SaltSpec struct {
	Buckets  int
	Form     string // byte or char
	Alphabet string
}

// KeySpec is one table's row-key design; generated code holds one per table. Its encodings
// are byte for byte those of every redbase SDK (docs/schema.md, "Row-key encodings").
type KeySpec struct {
	Layout     string // separated, fixed or binary
	Separator  string // one character in the separated layout, "" otherwise
	Components []Component
	Hash       *HashSpec
	Salt       *SaltSpec
	Table      string // the table id, so errors name the key they refuse a value for
}

// Decoded is what a key's bytes hold.
type Decoded struct {
	Salt       int            // the salt bucket, -1 without a salt
	Hash       any            // nil, the hex-character string, or the raw []byte prefix
	Components map[string]any // the kept components by name
}

func inCharset(charset string, r rune) bool {
	switch charset {
	case "alnum":
		return r < utf8.RuneSelf && (isDigit(byte(r)) || isLetter(byte(r)))
	case "word":
		return r < utf8.RuneSelf && (isDigit(byte(r)) || isLetter(byte(r)) || r == '_')
	case "hex":
		return r < utf8.RuneSelf && (isDigit(byte(r)) || ('a' <= r && r <= 'f'))
	case "digits":
		return r < utf8.RuneSelf && isDigit(byte(r))
	}
	return true
}

func isDigit(b byte) bool  { return '0' <= b && b <= '9' }
func isLetter(b byte) bool { return ('a' <= b && b <= 'z') || ('A' <= b && b <= 'Z') }

func reversed(how, s string) string {
	if how == "chars" {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	}
	parts := strings.Split(s, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".")
}

// integer returns an integer component's value (widened to int64) after the type checks.
func integer(c *Component, v any) (int64, error) {
	var i int64
	switch x := v.(type) {
	case int32:
		if c.Type != "i32" {
			return 0, keyErr(c.Name, "an int32 given for a %s", c.Type)
		}
		i = int64(x)
	case int64:
		if c.Type == "i32" {
			return 0, keyErr(c.Name, "an int64 given for an i32")
		}
		i = x
	default:
		return 0, keyErr(c.Name, "%T is not a %s", v, c.Type)
	}
	if c.ReverseTimestamp {
		if i < 0 {
			return 0, keyErr(c.Name, "a reverse timestamp must be >= 0, got %d", i)
		}
		i = math.MaxInt64 - i
	}
	return i, nil
}

func checkString(c *Component, s string) error {
	if !utf8.ValidString(s) {
		return keyErr(c.Name, "not valid UTF-8")
	}
	for _, r := range s {
		if !inCharset(c.Charset, r) {
			return keyErr(c.Name, "%q is outside charset %s", r, c.Charset)
		}
	}
	return nil
}

// escapeBinary writes b with each 0x00 as 0x00 0xFF, then the terminator 0x00 0x00.
func escapeBinary(b []byte) []byte {
	out := make([]byte, 0, len(b)+2)
	for _, x := range b {
		out = append(out, x)
		if x == 0 {
			out = append(out, 0xFF)
		}
	}
	return append(out, 0, 0)
}

func (s *KeySpec) binaryField(c *Component, v any) ([]byte, error) {
	var out []byte
	switch c.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return nil, keyErr(c.Name, "%T is not a string", v)
		}
		if err := checkString(c, str); err != nil {
			return nil, err
		}
		if c.Reverse != "" {
			str = reversed(c.Reverse, str)
		}
		out = escapeBinary([]byte(str))
	case "bytes":
		b, ok := v.([]byte)
		if !ok {
			return nil, keyErr(c.Name, "%T is not []byte", v)
		}
		out = escapeBinary(b)
	case "f32":
		f, ok := v.(float32)
		if !ok {
			return nil, keyErr(c.Name, "%T is not a float32", v)
		}
		bits := math.Float32bits(f)
		if f != f {
			bits = 0x7fc00000
		}
		if bits>>31 == 1 {
			bits = ^bits
		} else {
			bits ^= 1 << 31
		}
		out = binary.BigEndian.AppendUint32(nil, bits)
	case "f64":
		f, ok := v.(float64)
		if !ok {
			return nil, keyErr(c.Name, "%T is not a float64", v)
		}
		bits := math.Float64bits(f)
		if f != f {
			bits = 0x7ff8000000000000
		}
		if bits>>63 == 1 {
			bits = ^bits
		} else {
			bits ^= 1 << 63
		}
		out = binary.BigEndian.AppendUint64(nil, bits)
	default:
		i, err := integer(c, v)
		if err != nil {
			return nil, err
		}
		if c.Type == "i32" {
			out = binary.BigEndian.AppendUint32(nil, uint32(int32(i))^0x80000000)
		} else {
			out = binary.BigEndian.AppendUint64(nil, uint64(i)^(1<<63))
		}
	}
	if c.Desc {
		for i := range out {
			out[i] = ^out[i]
		}
	}
	return out, nil
}

// pow10 returns 10^w for widths up to 19 (the largest that fits a uint64).
func pow10(w int) uint64 {
	p := uint64(1)
	for i := 0; i < w; i++ {
		p *= 10
	}
	return p
}

func (s *KeySpec) textField(c *Component, v any) ([]byte, error) {
	separated := s.Layout == "separated"
	switch c.Type {
	case "string":
		str, ok := v.(string)
		if !ok {
			return nil, keyErr(c.Name, "%T is not a string", v)
		}
		if err := checkString(c, str); err != nil {
			return nil, err
		}
		if c.Reverse != "" {
			str = reversed(c.Reverse, str)
		}
		if separated {
			if c.Escape {
				var b strings.Builder
				for _, r := range str {
					if string(r) == s.Separator || r == '\\' {
						b.WriteByte('\\')
					}
					b.WriteRune(r)
				}
				str = b.String()
			}
			return []byte(str), nil
		}
		if strings.IndexByte(str, 0) >= 0 || len(str) > c.Width {
			return nil, keyErr(c.Name, "needs at most %d UTF-8 bytes and no 0x00", c.Width)
		}
		out := make([]byte, c.Width)
		copy(out, str)
		return out, nil
	case "bytes":
		b, ok := v.([]byte)
		if !ok {
			return nil, keyErr(c.Name, "%T is not []byte", v)
		}
		if separated {
			return []byte(hex.EncodeToString(b)), nil
		}
		if len(b) != c.Width {
			return nil, keyErr(c.Name, "needs exactly %d bytes, got %d", c.Width, len(b))
		}
		return append([]byte(nil), b...), nil
	case "f32", "f64":
		return nil, keyErr(c.Name, "floats need the binary layout")
	}
	i, err := integer(c, v)
	if err != nil {
		return nil, err
	}
	if c.Width == 0 {
		return []byte(strconv.FormatInt(i, 10)), nil
	}
	limit := pow10(c.Width)
	if i < 0 || uint64(i) >= limit {
		return nil, keyErr(c.Name, "%d does not fit %d zero-padded digits", i, c.Width)
	}
	u := uint64(i)
	if c.Desc {
		u = limit - 1 - u
	}
	t := strconv.FormatUint(u, 10)
	t = strings.Repeat("0", c.Width-len(t)) + t
	if c.Reverse != "" {
		t = reversed(c.Reverse, t)
	}
	return []byte(t), nil
}

// StringPrefix is the bytes that start the field of every string starting with p (a typed
// starts-with): the field's encoding without what ends it. Escaping maps each character
// (separated: the separator and `\`) or byte (binary: 0x00) on its own, so encoding p whole
// never cuts an escape in half. Fixed: the UTF-8 without padding; binary: without the
// terminator, inverted when descending.
func (s *KeySpec) StringPrefix(c *Component, p string) ([]byte, error) {
	if c.Type != "string" {
		return nil, keyErr(c.Name, "a starts-with applies to string components, and the %s key has it as %s", s.Table, c.Type)
	}
	if err := checkString(c, p); err != nil {
		return nil, err
	}
	switch s.Layout {
	case "separated":
		return s.textField(c, p)
	case "fixed":
		if strings.IndexByte(p, 0) >= 0 || len(p) > c.Width {
			return nil, keyErr(c.Name, "needs at most %d UTF-8 bytes and no 0x00", c.Width)
		}
		return []byte(p), nil
	}
	out := escapeBinary([]byte(p))
	out = out[:len(out)-2]
	if c.Desc {
		for i := range out {
			out[i] = ^out[i]
		}
	}
	return out, nil
}

// isEmpty reports an empty string or []byte value.
func isEmpty(v any) bool {
	switch x := v.(type) {
	case string:
		return x == ""
	case []byte:
		return len(x) == 0
	}
	return false
}

// Field returns one component's bytes in this layout.
func (s *KeySpec) Field(c *Component, v any) ([]byte, error) {
	if !c.AllowEmpty && isEmpty(v) {
		// An empty field is almost always a forgotten one (a zero-value struct field), and a
		// key like `d41d8||201501` would silently stand for it: refused in the words of every
		// redbase SDK.
		return nil, keyErr(c.Name, "must not be empty in the %s key (the schema does not set allow_empty)", s.Table)
	}
	if s.Layout == "binary" {
		return s.binaryField(c, v)
	}
	return s.textField(c, v)
}

func (s *KeySpec) join(parts [][]byte) []byte {
	return bytes.Join(parts, []byte(s.Separator))
}

// body is the key without its salt for the leading values (all of them for a full key).
func (s *KeySpec) body(leading []any) ([]byte, error) {
	fields := make([][]byte, len(leading))
	for i, v := range leading {
		f, err := s.Field(&s.Components[i], v)
		if err != nil {
			return nil, err
		}
		fields[i] = f
	}
	var parts [][]byte
	if h := s.Hash; h != nil {
		input := make([][]byte, 0, len(h.Components))
		for _, i := range h.Components {
			if i >= len(fields) {
				return nil, keyErr(s.Components[i].Name, "the hash prefix needs this component")
			}
			input = append(input, fields[i])
		}
		digest := md5.Sum(s.join(input))
		if h.Form == "hex_chars" {
			parts = append(parts, []byte(hex.EncodeToString(digest[:])[:h.N]))
		} else {
			parts = append(parts, append([]byte(nil), digest[:h.N]...))
		}
	}
	for i, f := range fields {
		if s.Components[i].Kept {
			parts = append(parts, f)
		}
	}
	out := s.join(parts)
	more := false
	for _, c := range s.Components[len(fields):] {
		more = more || c.Kept
	}
	if more && len(parts) > 0 {
		out = append(out, s.Separator...)
	}
	return out, nil
}

// SaltField is the salt as it starts a key: its byte or character, then the separator.
func (s *KeySpec) SaltField(bucket int) []byte {
	if s.Salt == nil {
		return nil
	}
	var head byte
	if s.Salt.Form == "byte" {
		head = byte(bucket)
	} else {
		head = s.Salt.Alphabet[bucket]
	}
	return append([]byte{head}, s.Separator...)
}

// SaltWidth is how many bytes the salt takes at the start of every key (0 unsalted): a
// salted scan merges its buckets by the key after them.
func (s *KeySpec) SaltWidth() int {
	return len(s.SaltField(0))
}

// SaltBucket is the first four bytes of MD5(body) as a big-endian uint32, modulo buckets.
func SaltBucket(body []byte, buckets int) int {
	d := md5.Sum(body)
	return int(binary.BigEndian.Uint32(d[:4]) % uint32(buckets))
}

// Encode returns the row key for one value per component, in declaration order.
func (s *KeySpec) Encode(values []any) ([]byte, error) {
	if len(values) != len(s.Components) {
		return nil, keyErr("", "%d components expected, got %d", len(s.Components), len(values))
	}
	body, err := s.body(values)
	if err != nil {
		return nil, err
	}
	if s.Salt == nil {
		return body, nil
	}
	return append(s.SaltField(SaltBucket(body, s.Salt.Buckets)), body...), nil
}

// Prefixes returns the prefixes of the keys whose leading components equal leading: one per
// salt bucket, in bucket order (one for an unsalted key).
func (s *KeySpec) Prefixes(leading []any) ([][]byte, error) {
	if len(leading) > len(s.Components) {
		return nil, keyErr("", "%d values for %d components", len(leading), len(s.Components))
	}
	var body []byte
	if len(leading) > 0 {
		var err error
		if body, err = s.body(leading); err != nil {
			return nil, err
		}
	}
	if s.Salt == nil {
		return [][]byte{body}, nil
	}
	out := make([][]byte, s.Salt.Buckets)
	for b := range out {
		out[b] = append(s.SaltField(b), body...)
	}
	return out, nil
}

// RegionIndex is the region a key falls in: how many split keys are <= it.
func RegionIndex(splits [][]byte, key []byte) int {
	n := 0
	for _, s := range splits {
		if bytes.Compare(s, key) <= 0 {
			n++
		}
	}
	return n
}

// NewKeySpec returns a key design (generated code builds one per table).
func NewKeySpec(table, layout, separator string, components []Component, hash *HashSpec, salt *SaltSpec) *KeySpec {
	return &KeySpec{Layout: layout, Separator: separator, Components: components, Hash: hash, Salt: salt, Table: table}
}
