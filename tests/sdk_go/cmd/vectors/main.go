// Command vectors runs the shared vectors (sdks/vectors/keys.json, values.json, filters.json,
// bounds.json, merge.json) through the generated Go SDK for the example schemas, byte for byte,
// and prints one line per file:
//
//	VECTORS go <file> pass <n>
//	VECTORS go <file> FAIL <n_failed>/<n>
//
// It exits 1 if any vector fails (each failure is described on stderr).
package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"

	"redbase/tests/sdk_go/internal/vj"
)

// result counts one file's vectors.
type result struct {
	file   string
	n      int
	failed int
}

func (r *result) check(what string, err error) {
	r.n++
	if err != nil {
		r.failed++
		if r.failed <= 20 {
			fmt.Fprintf(os.Stderr, "%s: %s: %v\n", r.file, what, err)
		}
	}
}

func (r *result) print() bool {
	if r.failed == 0 {
		fmt.Printf("VECTORS go %s pass %d\n", r.file, r.n)
		return true
	}
	fmt.Printf("VECTORS go %s FAIL %d/%d\n", r.file, r.failed, r.n)
	return false
}

func main() {
	dir := filepath.Join("..", "..", "sdks", "vectors")
	if len(os.Args) > 1 {
		dir = os.Args[1]
	}
	ok := true
	for _, f := range []struct {
		name string
		run  func(map[string]any, *result)
	}{{"keys.json", keyVectors}, {"values.json", valueVectors}, {"filters.json", filterVectors}, {"bounds.json", boundsVectors}, {"merge.json", mergeVectors}} {
		r := &result{file: f.name}
		data, err := os.ReadFile(filepath.Join(dir, f.name))
		var doc map[string]any
		if err == nil {
			err = vj.Parse(data, &doc)
		}
		if err != nil {
			r.check("read", err)
		} else {
			f.run(doc, r)
		}
		if r.n == 0 {
			r.check("vectors", errors.New("the file has no vectors"))
		}
		ok = r.print() && ok
	}
	if !ok {
		os.Exit(1)
	}
}

func list(doc map[string]any, name string) []map[string]any {
	var out []map[string]any
	items, _ := doc[name].([]any)
	for _, it := range items {
		if m, ok := it.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// key builds table's typed Key from the given components; n is how many leading
// components were given (they must be the first n).
func key(table string, given map[string]any) (reflect.Value, int, error) {
	info, ok := sdk.Tables[table]
	if !ok {
		return reflect.Value{}, 0, fmt.Errorf("no table %q in the SDK", table)
	}
	k := reflect.New(info.Key).Elem()
	n := 0
	for i := 0; i < k.NumField(); i++ {
		j, ok := given[vj.Tag(info.Key.Field(i))]
		if !ok {
			continue
		}
		if i != n {
			return k, 0, fmt.Errorf("components given out of order")
		}
		v, err := vj.FromJSON(info.Key.Field(i).Type, j)
		if err != nil {
			return k, 0, err
		}
		k.Field(i).Set(v)
		n++
	}
	if n != len(given) {
		return k, 0, fmt.Errorf("unknown components in %v", given)
	}
	return k, n, nil
}

func encode(k reflect.Value) ([]byte, error) {
	out, err := vj.Call(k, "Encode")
	if err != nil {
		return nil, err
	}
	return out[0].Bytes(), nil
}

func keyVectors(doc map[string]any, r *result) {
	for _, v := range list(doc, "keys") {
		table, _ := v["table"].(string)
		r.check("key "+table, keyVector(table, v))
	}
	for _, v := range list(doc, "prefixes") {
		table, _ := v["table"].(string)
		r.check("prefix "+table, prefixVector(table, v))
	}
	for _, v := range list(doc, "errors") {
		table, _ := v["table"].(string)
		k, _, err := key(table, v["components"].(map[string]any))
		if err == nil {
			_, err = encode(k)
			switch {
			case err == nil:
				err = fmt.Errorf("%v encoded, want an error", v["components"])
			case errors.Is(err, sdk.ErrKeyEncoding):
				// The error names the component the reference refused.
				var ke *sdk.KeyError
				if want, ok := v["component"].(string); ok && (!errors.As(err, &ke) || ke.Component != want) {
					err = fmt.Errorf("error %v does not name component %s", err, want)
				} else {
					err = nil
				}
			default:
				err = fmt.Errorf("error %v does not wrap ErrKeyEncoding", err)
			}
		}
		r.check("error "+table, err)
	}
}

func keyVector(table string, v map[string]any) error {
	comps, _ := v["components"].(map[string]any)
	k, _, err := key(table, comps)
	if err != nil {
		return err
	}
	raw, err := encode(k)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(raw); got != v["key_hex"] {
		return fmt.Errorf("%v encodes to %s, want %s", comps, got, v["key_hex"])
	}
	info := sdk.Tables[table]
	parts, err := info.DecodeKey(raw)
	if err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := sameParts(reflect.ValueOf(parts), v["decoded"].(map[string]any)); err != nil {
		return fmt.Errorf("decode %s: %w", v["key_hex"], err)
	}
	region := redbase.RegionIndex(info.Def.Splits, raw)
	if want, _ := v["region"].(interface{ String() string }); want == nil || want.String() != fmt.Sprint(region) {
		return fmt.Errorf("region %d, want %v", region, v["region"])
	}
	return nil
}

// sameParts compares a decoded XKeyParts with the vector's {salt, hash, components}.
func sameParts(p reflect.Value, want map[string]any) error {
	comps, _ := want["components"].(map[string]any)
	seen := 0
	for i := 0; i < p.NumField(); i++ {
		name := vj.Tag(p.Type().Field(i))
		var w any
		switch name {
		case "salt", "hash":
			w = want[name]
			if w == nil {
				return fmt.Errorf("field %s present, the vector has none", name)
			}
		default:
			var ok bool
			if w, ok = comps[name]; !ok {
				return fmt.Errorf("component %s is not kept by the vector", name)
			}
			seen++
		}
		got, err := vj.ToJSON(p.Field(i))
		if err != nil {
			return err
		}
		if !vj.Same(got, w) {
			return fmt.Errorf("%s = %v, want %v", name, got, w)
		}
	}
	if seen != len(comps) {
		return fmt.Errorf("%d kept components, the vector has %d", seen, len(comps))
	}
	for _, name := range []string{"salt", "hash"} {
		if want[name] != nil {
			if _, ok := vj.FieldByTag(p, name); !ok {
				return fmt.Errorf("no %s field, want %v", name, want[name])
			}
		}
	}
	return nil
}

func prefixVector(table string, v map[string]any) error {
	k, n, err := key(table, v["components"].(map[string]any))
	if err != nil {
		return err
	}
	// The table's XKeys() bounds, each given component bound by its method (named as the
	// key's field).
	bounds := reflect.ValueOf(sdk.Tables[table].Keys())
	for i := 0; i < n; i++ {
		bounds = bounds.MethodByName(k.Type().Field(i).Name).Call([]reflect.Value{k.Field(i)})[0]
	}
	out, err := vj.Call(bounds, "Range")
	if v["error"] == true {
		if err == nil || !errors.Is(err, sdk.ErrKeyEncoding) {
			return fmt.Errorf("prefix(%d) = %v, %v; want a key error", n, out, err)
		}
		return nil
	}
	if err != nil {
		return err
	}
	rng := out[0].Interface().(redbase.KeyRange)
	want, _ := v["prefixes_hex"].([]any)
	if len(rng.Ranges) != len(want) {
		return fmt.Errorf("%d prefixes, want %d", len(rng.Ranges), len(want))
	}
	for i, r := range rng.Ranges {
		if got := hex.EncodeToString(r.Start); got != want[i] {
			return fmt.Errorf("prefix %d is %s, want %s", i, got, want[i])
		}
	}
	return nil
}
