// Command xlang is the Go side of the cross-language check (tests/xlang/README.md), through
// the generated SDK only:
//
//	xlang write HOST PORT           (re)create the dataset's tables and write tests/xlang/dataset.json
//	xlang dump HOST PORT            print every dataset table's rows as canonical JSON
//	xlang write-versions HOST PORT  timestamped puts of the dataset's `versions`
//	xlang dump-versions HOST PORT   each entry's field read with WithVersions(3)
//	xlang write-batch HOST PORT     PutMany, DeleteMany, IncrementMany of the dataset's `batches`
//	xlang dump-batch HOST PORT      the rows of the `batches` tables, as dump prints them
//
// It reaches each table's typed structs and methods through sdk.Tables and reflection; the
// `redbase` struct tags give the schema names.
package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"time"

	sdk "redbase.example/sdks/go"

	"redbase/tests/sdk_go/internal/vj"
)

type dataset struct {
	Tables map[string]struct {
		Rows []struct {
			Key    map[string]any `json:"key"`
			Values map[string]any `json:"values"`
		} `json:"rows"`
		Increments []struct {
			Key    map[string]any `json:"key"`
			Field  string         `json:"field"`
			Part   *string        `json:"part"`
			Amount string         `json:"amount"`
		} `json:"increments"`
	} `json:"tables"`
	Versions map[string][]struct {
		Key   map[string]any `json:"key"`
		Field string         `json:"field"`
		Cells []struct {
			Timestamp string `json:"timestamp"`
			Value     any    `json:"value"`
		} `json:"cells"`
	} `json:"versions"`
	Batches map[string]struct {
		Rows []struct {
			Key    map[string]any `json:"key"`
			Values map[string]any `json:"values"`
		} `json:"rows"`
		Deletes    []map[string]any `json:"deletes"`
		Increments []struct {
			Key      map[string]any    `json:"key"`
			Counters map[string]string `json:"counters"`
		} `json:"increments"`
	} `json:"batches"`
}

var commands = map[string]bool{"write": true, "dump": true, "write-versions": true, "dump-versions": true,
	"write-batch": true, "dump-batch": true}

func main() {
	if len(os.Args) != 4 || !commands[os.Args[1]] {
		fmt.Fprintln(os.Stderr, "usage: xlang write|dump|write-versions|dump-versions|write-batch|dump-batch HOST PORT")
		os.Exit(2)
	}
	if err := run(os.Args[1], net.JoinHostPort(os.Args[2], os.Args[3])); err != nil {
		fmt.Fprintln(os.Stderr, "xlang:", err)
		os.Exit(1)
	}
}

func run(cmd, addr string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	path := os.Getenv("XLANG_DATASET")
	if path == "" {
		path = filepath.Join("tests", "xlang", "dataset.json")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var data dataset
	if err := vj.Parse(raw, &data); err != nil {
		return err
	}
	// XLANG_TABLE_PREFIX names the tables with a prefix, as the Python tool does.
	client, err := sdk.Dial(ctx, addr, &sdk.Options{TablePrefix: os.Getenv("XLANG_TABLE_PREFIX")})
	if err != nil {
		return err
	}
	defer client.Close()
	var out any
	switch cmd {
	case "write":
		return write(ctx, client, &data)
	case "write-versions":
		return writeVersions(ctx, client, &data)
	case "write-batch":
		return writeBatch(ctx, client, &data)
	case "dump":
		out, err = dump(ctx, client, keysOf(data.Tables))
	case "dump-versions":
		out, err = dumpVersions(ctx, client, &data)
	case "dump-batch":
		out, err = dump(ctx, client, keysOf(data.Batches))
	}
	if err != nil {
		return err
	}
	text, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	fmt.Println(string(text))
	return nil
}

func info(table string) (sdk.TableInfo, error) {
	i, ok := sdk.Tables[table]
	if !ok {
		return i, fmt.Errorf("no table %q in the SDK", table)
	}
	return i, nil
}

func key(i sdk.TableInfo, given map[string]any) (reflect.Value, error) {
	k := reflect.New(i.Key).Elem()
	for f := 0; f < k.NumField(); f++ {
		name := vj.Tag(i.Key.Field(f))
		j, ok := given[name]
		if !ok {
			return k, fmt.Errorf("key component %s missing", name)
		}
		v, err := vj.FromJSON(i.Key.Field(f).Type, j)
		if err != nil {
			return k, fmt.Errorf("key component %s: %w", name, err)
		}
		k.Field(f).Set(v)
	}
	return k, nil
}

// part converts a pattern part's text to the map's key type.
func part(t reflect.Type, text string) (reflect.Value, error) {
	if t.Kind() == reflect.String {
		return reflect.ValueOf(text).Convert(t), nil
	}
	n, err := strconv.ParseInt(text, 10, t.Bits())
	if err != nil {
		return reflect.Value{}, err
	}
	return reflect.ValueOf(n).Convert(t), nil
}

func values(i sdk.TableInfo, given map[string]any) (reflect.Value, error) {
	v := reflect.New(i.Values).Elem()
	for name, j := range given {
		f, ok := vj.FieldByTag(v, name)
		if !ok {
			return v, fmt.Errorf("no column %s", name)
		}
		if f.Kind() != reflect.Map {
			x, err := vj.FromJSON(f.Type(), j)
			if err != nil {
				return v, fmt.Errorf("column %s: %w", name, err)
			}
			f.Set(x)
			continue
		}
		m := reflect.MakeMap(f.Type())
		entries, _ := j.(map[string]any)
		for text, e := range entries {
			p, err := part(f.Type().Key(), text)
			if err != nil {
				return v, fmt.Errorf("column %s part %q: %w", name, text, err)
			}
			x, err := vj.FromJSON(f.Type().Elem(), e)
			if err != nil {
				return v, fmt.Errorf("column %s: %w", name, err)
			}
			m.SetMapIndex(p, x)
		}
		f.Set(m)
	}
	return v, nil
}

// keysOf is a map's keys, sorted.
func keysOf[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// recreate drops the table if it exists and creates it; it returns the typed table client.
func recreate(ctx context.Context, client *sdk.Client, name string) (sdk.TableInfo, reflect.Value, error) {
	i, err := info(name)
	if err != nil {
		return i, reflect.Value{}, err
	}
	t := reflect.ValueOf(i.Open(client))
	out, err := vj.Call(t, "Exists", ctx)
	if err != nil {
		return i, t, fmt.Errorf("%s: %w", name, err)
	}
	if out[0].Bool() {
		if _, err := vj.Call(t, "Drop", ctx); err != nil {
			return i, t, fmt.Errorf("%s: %w", name, err)
		}
	}
	if _, err := vj.Call(t, "Create", ctx); err != nil {
		return i, t, fmt.Errorf("%s: %w", name, err)
	}
	return i, t, nil
}

func write(ctx context.Context, client *sdk.Client, data *dataset) error {
	for _, name := range keysOf(data.Tables) {
		d := data.Tables[name]
		i, t, err := recreate(ctx, client, name)
		if err != nil {
			return err
		}
		for _, row := range d.Rows {
			k, err := key(i, row.Key)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			v, err := values(i, row.Values)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if _, err := vj.Call(t, "Put", ctx, k, v); err != nil {
				return fmt.Errorf("%s: put: %w", name, err)
			}
		}
		for _, inc := range d.Increments {
			if err := increment(ctx, t, i, name, inc.Key, inc.Field, inc.Part, inc.Amount); err != nil {
				return err
			}
		}
	}
	return nil
}

func increment(ctx context.Context, t reflect.Value, i sdk.TableInfo, table string, given map[string]any, field string, p *string, amount string) error {
	k, err := key(i, given)
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	n, err := strconv.ParseInt(amount, 10, 64)
	if err != nil {
		return fmt.Errorf("%s: amount %q: %w", table, amount, err)
	}
	f, ok := i.Values.FieldByNameFunc(func(s string) bool {
		sf, _ := i.Values.FieldByName(s)
		return vj.Tag(sf) == field
	})
	if !ok {
		return fmt.Errorf("%s: no column %s", table, field)
	}
	method := "Increment" + f.Name
	args := []any{ctx, k}
	if p != nil {
		pv, err := part(f.Type.Key(), *p)
		if err != nil {
			return fmt.Errorf("%s: part %q: %w", table, *p, err)
		}
		args = append(args, pv)
	}
	if _, err := vj.Call(t, method, append(args, n)...); err != nil {
		return fmt.Errorf("%s: %s: %w", table, method, err)
	}
	return nil
}

func dump(ctx context.Context, client *sdk.Client, tables []string) (map[string][]map[string]any, error) {
	out := map[string][]map[string]any{}
	for _, name := range tables {
		i, err := info(name)
		if err != nil {
			return nil, err
		}
		t := reflect.ValueOf(i.Open(client))
		sc, _ := vj.Call(t, "Scan", ctx, sdk.KeyRange{}, sdk.ScanOptions{})
		rows, err := vj.Call(sc[0], "All")
		if err != nil {
			return nil, fmt.Errorf("%s: scan: %w", name, err)
		}
		list := []map[string]any{}
		for r := 0; r < rows[0].Len(); r++ {
			row, err := dumpRow(i, rows[0].Index(r))
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			list = append(list, row)
		}
		out[name] = list
	}
	return out, nil
}

func dumpRow(i sdk.TableInfo, row reflect.Value) (map[string]any, error) {
	parts := row.FieldByName("Key")
	out := map[string]any{
		"key_hex": hex.EncodeToString(row.FieldByName("RowKey").Bytes()),
		"salt":    nil,
		"hash":    nil,
	}
	key := map[string]any{}
	for f := 0; f < parts.NumField(); f++ {
		name := vj.Tag(parts.Type().Field(f))
		v := parts.Field(f)
		switch {
		case name == "salt":
			out["salt"] = v.Int()
		case name == "hash" && v.Kind() == reflect.String:
			out["hash"] = v.String()
		case name == "hash":
			out["hash"] = hex.EncodeToString(v.Bytes())
		default:
			j, err := vj.ToJSON(v)
			if err != nil {
				return nil, err
			}
			key[name] = j
		}
	}
	out["key"] = key
	vals := map[string]any{}
	values := row.FieldByName("Values")
	for f := 0; f < values.NumField(); f++ {
		name := vj.Tag(values.Type().Field(f))
		v := values.Field(f)
		if v.IsNil() || (v.Kind() == reflect.Map && v.Len() == 0) {
			continue
		}
		if v.Kind() != reflect.Map {
			j, err := vj.ToJSON(v)
			if err != nil {
				return nil, err
			}
			vals[name] = j
			continue
		}
		col, ok := vj.ColumnByField(i.Columns, name)
		if !ok {
			return nil, fmt.Errorf("no column %s", name)
		}
		m := map[string]any{}
		iter := v.MapRange()
		for iter.Next() {
			text, err := vj.Call(col, "PartText", iter.Key())
			if err != nil {
				return nil, err
			}
			j, err := vj.ToJSON(iter.Value())
			if err != nil {
				return nil, err
			}
			m[text[0].String()] = j
		}
		vals[name] = m
	}
	out["values"] = vals
	return out, nil
}
