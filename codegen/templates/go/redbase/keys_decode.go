package redbase

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

func unreverseTimestamp(c *Component, stored int64) (int64, error) {
	if stored < 0 {
		return 0, keyErr(c.Name, "not a reverse timestamp")
	}
	return math.MaxInt64 - stored, nil
}

func unescapeText(c *Component, s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i == len(s) {
				return "", keyErr(c.Name, "dangling escape")
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), nil
}

// decodeText reads one field of the separated (sep) or fixed layout.
func (s *KeySpec) decodeText(c *Component, b []byte) (any, error) {
	separated := s.Layout == "separated"
	switch c.Type {
	case "string":
		if !separated {
			b = bytes.TrimRight(b, "\x00")
		}
		if !utf8.Valid(b) {
			return nil, keyErr(c.Name, "not valid UTF-8")
		}
		str := string(b)
		if c.Escape {
			var err error
			if str, err = unescapeText(c, str); err != nil {
				return nil, err
			}
		}
		if c.Reverse != "" {
			str = reversed(c.Reverse, str)
		}
		return str, nil
	case "bytes":
		if !separated {
			return append([]byte(nil), b...), nil
		}
		out, err := hex.DecodeString(string(b))
		if err != nil {
			return nil, keyErr(c.Name, "not hex: %v", err)
		}
		return out, nil
	case "f32", "f64":
		return nil, keyErr(c.Name, "floats need the binary layout")
	}
	t := string(b)
	if c.Reverse != "" {
		t = reversed(c.Reverse, t)
	}
	digits := strings.TrimPrefix(t, "-")
	if digits == "" || strings.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return nil, keyErr(c.Name, "not a number")
	}
	var n int64
	if c.Width != 0 {
		if len(t) != c.Width || t[0] == '-' {
			return nil, keyErr(c.Name, "not %d digits", c.Width)
		}
		u, err := strconv.ParseUint(t, 10, 64)
		if err != nil {
			return nil, keyErr(c.Name, "not a number")
		}
		if c.Desc {
			u = pow10(c.Width) - 1 - u
		}
		if u > math.MaxInt64 {
			return nil, keyErr(c.Name, "out of %s range", c.Type)
		}
		n = int64(u)
	} else {
		var err error
		if n, err = strconv.ParseInt(t, 10, 64); err != nil {
			return nil, keyErr(c.Name, "out of %s range", c.Type)
		}
	}
	return integerValue(c, n)
}

// integerValue undoes a reverse timestamp and types the value as the component declares.
func integerValue(c *Component, n int64) (any, error) {
	if c.ReverseTimestamp {
		var err error
		if n, err = unreverseTimestamp(c, n); err != nil {
			return nil, err
		}
	}
	if c.Type == "i32" {
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, keyErr(c.Name, "out of i32 range")
		}
		return int32(n), nil
	}
	return n, nil
}

// decodeBinary reads one binary field at pos; returns the value and the next position.
func decodeBinary(c *Component, key []byte, pos int) (any, int, error) {
	at := func(i int) byte {
		if c.Desc {
			return ^key[i]
		}
		return key[i]
	}
	take := func(n int) ([]byte, error) {
		if pos+n > len(key) {
			return nil, keyErr(c.Name, "key too short")
		}
		out := make([]byte, n)
		for i := range out {
			out[i] = at(pos + i)
		}
		return out, nil
	}
	switch c.Type {
	case "string", "bytes":
		var out []byte
		i := pos
		for {
			if i >= len(key) || i+1 >= len(key) && at(i) == 0 {
				return nil, 0, keyErr(c.Name, "key too short")
			}
			x := at(i)
			if x != 0 {
				out = append(out, x)
				i++
				continue
			}
			y := at(i + 1)
			if y == 0 {
				break
			}
			if y != 0xFF {
				return nil, 0, keyErr(c.Name, "bad escape")
			}
			out = append(out, 0)
			i += 2
		}
		if c.Type == "bytes" {
			if out == nil {
				out = []byte{}
			}
			return out, i + 2, nil
		}
		if !utf8.Valid(out) {
			return nil, 0, keyErr(c.Name, "not valid UTF-8")
		}
		str := string(out)
		if c.Reverse != "" {
			str = reversed(c.Reverse, str)
		}
		return str, i + 2, nil
	case "i32":
		b, err := take(4)
		if err != nil {
			return nil, 0, err
		}
		return int32(binary.BigEndian.Uint32(b) ^ 0x80000000), pos + 4, nil
	case "f32":
		b, err := take(4)
		if err != nil {
			return nil, 0, err
		}
		u := binary.BigEndian.Uint32(b)
		if u>>31 == 1 {
			u ^= 1 << 31
		} else {
			u = ^u
		}
		return math.Float32frombits(u), pos + 4, nil
	case "f64":
		b, err := take(8)
		if err != nil {
			return nil, 0, err
		}
		u := binary.BigEndian.Uint64(b)
		if u>>63 == 1 {
			u ^= 1 << 63
		} else {
			u = ^u
		}
		return math.Float64frombits(u), pos + 8, nil
	}
	b, err := take(8)
	if err != nil {
		return nil, 0, err
	}
	v, err := integerValue(c, int64(binary.BigEndian.Uint64(b)^(1<<63)))
	return v, pos + 8, err
}

// splitUnescaped splits on sep bytes not preceded by a backslash escape.
func splitUnescaped(b []byte, sep byte) [][]byte {
	var fields [][]byte
	start := 0
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' {
			i++
			continue
		}
		if b[i] == sep {
			fields = append(fields, b[start:i])
			start = i + 1
		}
	}
	return append(fields, b[start:])
}

// Decode returns the salt bucket, hash prefix and kept components of a key.
func (s *KeySpec) Decode(key []byte) (Decoded, error) {
	d := Decoded{Salt: -1, Components: map[string]any{}}
	pos := 0
	take := func(n int, what string) ([]byte, error) {
		if pos+n > len(key) {
			return nil, keyErr("", "too short for the %s", what)
		}
		pos += n
		return key[pos-n : pos], nil
	}
	expectSep := func() error {
		if s.Separator == "" {
			return nil
		}
		b, err := take(1, "separator")
		if err != nil {
			return err
		}
		if string(b) != s.Separator {
			return keyErr("", "separator expected at byte %d", pos-1)
		}
		return nil
	}
	var kept []*Component
	for i := range s.Components {
		if s.Components[i].Kept {
			kept = append(kept, &s.Components[i])
		}
	}
	if s.Salt != nil {
		b, err := take(1, "salt")
		if err != nil {
			return d, err
		}
		salt := int(b[0])
		if s.Salt.Form == "char" {
			salt = strings.IndexByte(s.Salt.Alphabet, b[0])
		}
		if salt < 0 || salt >= s.Salt.Buckets {
			return d, keyErr("", "salt bucket out of range")
		}
		d.Salt = salt
		if err := expectSep(); err != nil {
			return d, err
		}
	}
	if s.Hash != nil {
		raw, err := take(s.Hash.N, "hash prefix")
		if err != nil {
			return d, err
		}
		if s.Hash.Form == "hex_chars" {
			d.Hash = string(raw)
		} else {
			d.Hash = append([]byte(nil), raw...)
		}
		if len(kept) > 0 {
			if err := expectSep(); err != nil {
				return d, err
			}
		}
	}
	switch s.Layout {
	case "separated":
		fields := splitUnescaped(key[pos:], s.Separator[0])
		if len(fields) != len(kept) {
			return d, keyErr("", "%d fields expected after the prefixes, found %d", len(kept), len(fields))
		}
		for i, c := range kept {
			v, err := s.decodeText(c, fields[i])
			if err != nil {
				return d, err
			}
			d.Components[c.Name] = v
		}
		return d, nil
	case "fixed":
		for _, c := range kept {
			b, err := take(c.Width, c.Name)
			if err != nil {
				return d, err
			}
			v, err := s.decodeText(c, b)
			if err != nil {
				return d, err
			}
			d.Components[c.Name] = v
		}
	default:
		for _, c := range kept {
			v, next, err := decodeBinary(c, key, pos)
			if err != nil {
				return d, err
			}
			d.Components[c.Name], pos = v, next
		}
	}
	if pos != len(key) {
		return d, keyErr("", "trailing bytes after the last component")
	}
	return d, nil
}
