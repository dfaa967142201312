// Package vj converts between the SDK's Go values and the JSON forms of docs/schema.md
// ("Test vectors"): numbers for i32, decimal strings for i64/timestamp-ms/counter, IEEE bits
// in hex for floats, hex for bytes, the JSON value itself for json. The vector runner and the
// xlang tool reach the generated types through reflection and the `redbase` struct tags.
package vj

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strconv"
)

var (
	bytesType = reflect.TypeOf([]byte(nil))
	jsonType  = reflect.TypeOf(json.RawMessage(nil))
)

// Parse reads JSON keeping numbers exact.
func Parse(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return dec.Decode(v)
}

func number(j any) (string, error) {
	switch x := j.(type) {
	case json.Number:
		return string(x), nil
	case string:
		return x, nil
	}
	return "", fmt.Errorf("%v is not a number", j)
}

// FromJSON returns the value of Go type t (a pointer type: a pointer to it) for a vector JSON
// value.
func FromJSON(t reflect.Type, j any) (reflect.Value, error) {
	if t.Kind() == reflect.Pointer {
		v, err := FromJSON(t.Elem(), j)
		if err != nil {
			return v, err
		}
		p := reflect.New(t.Elem())
		p.Elem().Set(v)
		return p, nil
	}
	out := reflect.New(t).Elem()
	switch {
	case t == jsonType:
		raw, err := json.Marshal(j)
		if err != nil {
			return out, err
		}
		out.SetBytes(raw)
		return out, nil
	case t == bytesType:
		s, ok := j.(string)
		if !ok {
			return out, fmt.Errorf("%v is not hex", j)
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return out, err
		}
		out.SetBytes(b)
		return out, nil
	}
	switch t.Kind() {
	case reflect.String:
		s, ok := j.(string)
		if !ok {
			return out, fmt.Errorf("%v is not a string", j)
		}
		out.SetString(s)
	case reflect.Bool:
		b, ok := j.(bool)
		if !ok {
			return out, fmt.Errorf("%v is not a bool", j)
		}
		out.SetBool(b)
	case reflect.Int32, reflect.Int64:
		s, err := number(j)
		if err != nil {
			return out, err
		}
		n, err := strconv.ParseInt(s, 10, t.Bits())
		if err != nil {
			return out, err
		}
		out.SetInt(n)
	case reflect.Float32, reflect.Float64:
		s, ok := j.(string)
		if !ok {
			return out, fmt.Errorf("%v is not hex float bits", j)
		}
		b, err := hex.DecodeString(s)
		if err != nil || len(b) != t.Bits()/8 {
			return out, fmt.Errorf("%q is not %d-bit float bits", s, t.Bits())
		}
		if t.Kind() == reflect.Float32 {
			out.SetFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(b))))
		} else {
			out.SetFloat(math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	default:
		return out, fmt.Errorf("no JSON form for %s", t)
	}
	return out, nil
}

// ToJSON returns the vector JSON form of v (pointers followed; nil pointers are JSON null).
func ToJSON(v reflect.Value) (any, error) {
	t := v.Type()
	if t.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		return ToJSON(v.Elem())
	}
	switch {
	case t == jsonType:
		var out any
		if err := Parse(v.Bytes(), &out); err != nil {
			return nil, err
		}
		return out, nil
	case t == bytesType:
		return hex.EncodeToString(v.Bytes()), nil
	}
	switch t.Kind() {
	case reflect.String:
		return v.String(), nil
	case reflect.Bool:
		return v.Bool(), nil
	case reflect.Int32, reflect.Int:
		return json.Number(strconv.FormatInt(v.Int(), 10)), nil
	case reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), nil
	case reflect.Float32:
		return hex.EncodeToString(binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v.Float())))), nil
	case reflect.Float64:
		return hex.EncodeToString(binary.BigEndian.AppendUint64(nil, math.Float64bits(v.Float()))), nil
	}
	return nil, fmt.Errorf("no JSON form for %s", t)
}

// Same compares two JSON forms as parsed JSON (numbers by value, so 1 equals 1.0).
func Same(a, b any) bool {
	na, aok := a.(json.Number)
	nb, bok := b.(json.Number)
	if aok && bok {
		fa, _ := na.Float64()
		fb, _ := nb.Float64()
		return na == nb || fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Same(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Same(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}

// Tag is a struct field's schema name.
func Tag(f reflect.StructField) string { return f.Tag.Get("redbase") }

// Call calls v's method name with args and returns its results; the last result, when it
// is an error, is returned as err.
func Call(v reflect.Value, name string, args ...any) ([]reflect.Value, error) {
	m := v.MethodByName(name)
	if !m.IsValid() {
		return nil, fmt.Errorf("%s has no method %s", v.Type(), name)
	}
	in := make([]reflect.Value, len(args))
	for i, a := range args {
		if rv, ok := a.(reflect.Value); ok {
			in[i] = rv
		} else {
			in[i] = reflect.ValueOf(a)
		}
	}
	out := m.Call(in)
	if n := len(out); n > 0 && out[n-1].Type() == reflect.TypeOf((*error)(nil)).Elem() {
		err, _ := out[n-1].Interface().(error)
		return out[:n-1], err
	}
	return out, nil
}

// FieldByTag finds the struct field of v tagged name.
func FieldByTag(v reflect.Value, name string) (reflect.Value, bool) {
	for i := 0; i < v.NumField(); i++ {
		if Tag(v.Type().Field(i)) == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// ColumnByField finds the column descriptor (a field of an XColumns struct) whose Field is
// the schema field name.
func ColumnByField(columns any, field string) (reflect.Value, bool) {
	v := reflect.ValueOf(columns)
	for i := 0; i < v.NumField(); i++ {
		if v.Field(i).FieldByName("Field").String() == field {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}
