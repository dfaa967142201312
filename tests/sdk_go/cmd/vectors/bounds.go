package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"

	"redbase/tests/sdk_go/internal/vj"
)

// boundsVectors runs sdks/vectors/bounds.json: each case's components given through the
// table's named bounds (XKeys().UserID(..).PeriodBetween(..)) must resolve to exactly the
// vector's start/stop rows, one pair per salt bucket, or fail with a key error holding the
// vector's text. A case whose values Go's types cannot hold (a string for an i32 component)
// is checked by that refusal: such a call does not compile, so the conversion refuses it.
func boundsVectors(doc map[string]any, r *result) {
	refused := 0
	for _, v := range list(doc, "cases") {
		table, _ := v["table"].(string)
		name, _ := v["name"].(string)
		err := boundsCase(table, v)
		var tr typeRefusal
		if errors.As(err, &tr) {
			refused++
			fmt.Fprintf(os.Stderr, "bounds.json: %s %q: refused by Go's types (%s)\n", table, name, tr.reason)
			err = nil
		}
		r.check(fmt.Sprintf("bounds %s %q", table, name), err)
	}
	if refused > 0 {
		fmt.Fprintf(os.Stderr, "bounds.json: %d error cases checked by the refusal of the typed call\n", refused)
	}
}

// boundsCase checks one case; a typeRefusal is returned only for a case that expects an error.
func boundsCase(table string, v map[string]any) error {
	kr, err := resolveBounds(table, v["given"])
	want, isErr := v["error"].(string)
	var tr typeRefusal
	if errors.As(err, &tr) {
		if isErr {
			return tr
		}
		return fmt.Errorf("the typed calls cannot express the case: %s", tr.reason)
	}
	if isErr {
		switch {
		case err == nil:
			return fmt.Errorf("resolved to %s, want an error with %q", showRanges(kr), want)
		case !errors.Is(err, sdk.ErrKeyEncoding):
			return fmt.Errorf("error %v is not an ErrKeyEncoding", err)
		case !strings.Contains(err.Error(), want):
			return fmt.Errorf("error %q does not hold %q", err, want)
		}
		return nil
	}
	if err != nil {
		return err
	}
	rows, _ := v["ranges"].([]any)
	if len(rows) != len(kr.Ranges) {
		return fmt.Errorf("%s, want %d ranges %v", showRanges(kr), len(rows), rows)
	}
	for i, row := range rows {
		pair, _ := row.([]any)
		if len(pair) != 2 {
			return fmt.Errorf("range %d of the vector is not a pair: %v", i, row)
		}
		got := kr.Ranges[i]
		start, _ := pair[0].(string)
		stop, stopSet := pair[1].(string)
		if hex.EncodeToString(got.Start) != start || (got.Stop == nil) == stopSet ||
			(stopSet && hex.EncodeToString(got.Stop) != stop) {
			return fmt.Errorf("%s, want %v", showRanges(kr), rows)
		}
	}
	return nil
}

// resolveBounds calls the named bounds methods for the given components, in the order given,
// and resolves them. JSON a component's Go type cannot hold is a typeRefusal.
func resolveBounds(table string, given any) (redbase.KeyRange, error) {
	info, ok := sdk.Tables[table]
	if !ok {
		return redbase.KeyRange{}, fmt.Errorf("no table %q in the SDK", table)
	}
	bounds := reflect.ValueOf(info.Keys())
	items, _ := given.([]any)
	for _, it := range items {
		pair, _ := it.([]any)
		if len(pair) != 2 {
			return redbase.KeyRange{}, fmt.Errorf("given %v: [component, value] expected", it)
		}
		name, _ := pair[0].(string)
		field, ok := keyField(info.Key, name)
		if !ok {
			return redbase.KeyRange{}, fmt.Errorf("no component %q in %s", name, info.Key)
		}
		method, args := field.Name, []any{pair[1]}
		if lh, isRange := pair[1].(map[string]any); isRange {
			if _, ok := lh["low"]; ok && len(lh) == 2 {
				method, args = field.Name+"Between", []any{lh["low"], lh["high"]}
			}
			if p, ok := lh["starts_with"]; ok && len(lh) == 1 {
				method, args = field.Name+"StartsWith", []any{p}
			}
		}
		m := bounds.MethodByName(method)
		if !m.IsValid() {
			return redbase.KeyRange{}, typeRefusal{fmt.Sprintf("%s has no method %s", bounds.Type(), method)}
		}
		in := make([]reflect.Value, len(args))
		for i, a := range args {
			x, err := vj.FromJSON(m.Type().In(i), a)
			if err != nil {
				return redbase.KeyRange{}, typeRefusal{fmt.Sprintf("%s(%v): %v", method, a, err)}
			}
			in[i] = x
		}
		bounds = m.Call(in)[0]
	}
	out := bounds.MethodByName("Range").Call(nil)
	err, _ := out[1].Interface().(error)
	return out[0].Interface().(redbase.KeyRange), err
}

func keyField(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if vj.Tag(t.Field(i)) == name {
			return t.Field(i), true
		}
	}
	return reflect.StructField{}, false
}

func showRanges(kr redbase.KeyRange) string {
	var parts []string
	for _, r := range kr.Ranges {
		stop := "null"
		if r.Stop != nil {
			stop = hex.EncodeToString(r.Stop)
		}
		parts = append(parts, fmt.Sprintf("[%s %s]", hex.EncodeToString(r.Start), stop))
	}
	return "ranges " + strings.Join(parts, " ")
}
