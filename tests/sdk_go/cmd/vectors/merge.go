package main

import (
	"encoding/hex"
	"fmt"
	"strings"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"
)

// mergeVectors runs sdks/vectors/merge.json: each case's bucket rows (as each bucket's scanner
// returns them) through redbase.MergeRows, the merger every Scanner uses, with the table's salt
// width; the rows must come out in exactly the vector's order.
func mergeVectors(doc map[string]any, r *result) {
	for _, v := range list(doc, "cases") {
		table, _ := v["table"].(string)
		name, _ := v["name"].(string)
		r.check(fmt.Sprintf("merge %s %q", table, name), mergeCase(table, v))
	}
}

func mergeCase(table string, v map[string]any) error {
	info, ok := sdk.Tables[table]
	if !ok {
		return fmt.Errorf("no table %q in the SDK", table)
	}
	width := info.Def.Key.SaltWidth()
	if want := fmt.Sprint(v["salt_width"]); fmt.Sprint(width) != want {
		return fmt.Errorf("salt width %d, want %s", width, want)
	}
	var buckets [][][]byte
	for _, b := range v["buckets"].([]any) {
		var rows [][]byte
		for _, h := range b.([]any) {
			raw, err := hex.DecodeString(h.(string))
			if err != nil {
				return err
			}
			rows = append(rows, raw)
		}
		buckets = append(buckets, rows)
	}
	limit := 0
	if l, ok := v["limit"].(interface{ String() string }); ok {
		fmt.Sscan(l.String(), &limit)
	}
	reversed, _ := v["reversed"].(bool)
	bucketOrder, _ := v["bucket_order"].(bool)
	var got []string
	for _, row := range redbase.MergeRows(buckets, width, reversed, bucketOrder, limit) {
		got = append(got, hex.EncodeToString(row))
	}
	var want []string
	for _, h := range v["rows"].([]any) {
		want = append(want, h.(string))
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		return fmt.Errorf("rows %v, want %v", got, want)
	}
	return nil
}
