package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	sdk "redbase.example/sdks/go"

	"redbase/tests/sdk_go/internal/vj"
)

// filterVectors runs sdks/vectors/filters.json: each case's filter built with the SDK's typed
// builder (column comparisons, XKeys() prefixes, the filter constructors, AllOf / AnyOf) must
// render to exactly the vector's bytes, or fail with an error holding its text.
func filterVectors(doc map[string]any, r *result) {
	for _, v := range list(doc, "cases") {
		table, _ := v["table"].(string)
		name, _ := v["name"].(string)
		r.check(fmt.Sprintf("filter %s %q", table, name), filterCase(table, v))
	}
}

func filterCase(table string, v map[string]any) error {
	f, typeErr := buildFilter(table, v["filter"])
	if want, isErr := v["error"].(string); isErr {
		if typeErr != nil {
			// Go's types refuse what the vector's JSON can spell (a string operand for a
			// counter, a value comparison on a pattern column): the program would not
			// compile or the conversion to the column's type fails.
			return nil
		}
		_, err := f.Bytes()
		switch {
		case err == nil:
			return fmt.Errorf("rendered %q, want an error with %q", f.String(), want)
		case !strings.Contains(err.Error(), want):
			return fmt.Errorf("error %q does not hold %q", err, want)
		case !errors.Is(err, sdk.ErrFilter) && !errors.Is(err, sdk.ErrKeyEncoding) && !errors.Is(err, sdk.ErrValueEncoding):
			return fmt.Errorf("error %v wraps none of ErrFilter, ErrKeyEncoding, ErrValueEncoding", err)
		}
		return nil
	}
	if typeErr != nil {
		return typeErr
	}
	got, err := f.Bytes()
	if err != nil {
		return err
	}
	want, err := hex.DecodeString(v["bytes"].(string))
	if err != nil {
		return err
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("rendered %q, want %q", got, want)
	}
	return nil
}

// typeRefusal is a filter the Go types cannot express.
type typeRefusal struct{ reason string }

func (e typeRefusal) Error() string { return e.reason }

var ops = map[string]string{"eq": "Eq", "ne": "Ne", "lt": "Lt", "le": "Le", "gt": "Gt", "ge": "Ge"}

// buildFilter maps a vector filter onto builder calls.
func buildFilter(table string, j any) (sdk.Filter, error) {
	m, _ := j.(map[string]any)
	if len(m) != 1 {
		return sdk.Filter{}, fmt.Errorf("filter %v: one kind expected", j)
	}
	info, ok := sdk.Tables[table]
	if !ok {
		return sdk.Filter{}, fmt.Errorf("no table %q", table)
	}
	for kind, arg := range m {
		switch kind {
		case "value":
			a := arg.(map[string]any)
			col, ok := vj.ColumnByField(info.Columns, a["column"].(string))
			if !ok {
				return sdk.Filter{}, fmt.Errorf("no column %v", a["column"])
			}
			method := col.MethodByName(ops[a["op"].(string)])
			if !method.IsValid() {
				return sdk.Filter{}, typeRefusal{fmt.Sprintf("%s (a pattern column) has no comparisons", col.Type())}
			}
			operand, err := vj.FromJSON(method.Type().In(0), a["operand"])
			if err != nil {
				return sdk.Filter{}, typeRefusal{err.Error()}
			}
			return method.Call([]reflect.Value{operand})[0].Interface().(sdk.Filter), nil
		case "prefix":
			bounds := reflect.ValueOf(info.Keys())
			given := arg.(map[string]any)
			for i := 0; i < info.Key.NumField(); i++ {
				field := info.Key.Field(i)
				val, ok := given[vj.Tag(field)]
				if !ok {
					continue
				}
				if sw, ok := val.(map[string]any); ok && sw["starts_with"] != nil {
					m := bounds.MethodByName(field.Name + "StartsWith")
					if !m.IsValid() {
						return sdk.Filter{}, typeRefusal{fmt.Sprintf("no method %sStartsWith", field.Name)}
					}
					bounds = m.Call([]reflect.Value{reflect.ValueOf(fmt.Sprint(sw["starts_with"]))})[0]
					continue
				}
				x, err := vj.FromJSON(field.Type, val)
				if err != nil {
					return sdk.Filter{}, typeRefusal{err.Error()}
				}
				bounds = bounds.MethodByName(field.Name).Call([]reflect.Value{x})[0]
			}
			return bounds.MethodByName("PrefixFilter").Call(nil)[0].Interface().(sdk.Filter), nil
		case "page":
			n, err := strconv.ParseInt(fmt.Sprint(arg), 10, 64)
			if err != nil {
				return sdk.Filter{}, err
			}
			return sdk.PageFilter(n), nil
		case "key_only":
			return sdk.KeyOnlyFilter(), nil
		case "first_key_only":
			return sdk.FirstKeyOnlyFilter(), nil
		case "timestamps":
			var ts []int64
			for _, t := range arg.([]any) {
				n, err := strconv.ParseInt(fmt.Sprint(t), 10, 64)
				if err != nil {
					return sdk.Filter{}, err
				}
				ts = append(ts, n)
			}
			return sdk.TimestampsFilter(ts...), nil
		case "column_prefix":
			b, err := hex.DecodeString(arg.(string))
			if err != nil {
				return sdk.Filter{}, err
			}
			return sdk.ColumnPrefixFilter(b), nil
		case "all", "any":
			var fs []sdk.Filter
			for _, sub := range arg.([]any) {
				f, err := buildFilter(table, sub)
				if err != nil {
					return sdk.Filter{}, err
				}
				fs = append(fs, f)
			}
			if kind == "all" {
				return sdk.AllOf(fs...), nil
			}
			return sdk.AnyOf(fs...), nil
		}
		return sdk.Filter{}, fmt.Errorf("unknown filter kind %q", kind)
	}
	return sdk.Filter{}, nil
}
