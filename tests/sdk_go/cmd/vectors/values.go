package main

import (
	"encoding/hex"
	"fmt"
	"reflect"

	sdk "redbase.example/sdks/go"
	"redbase.example/sdks/go/redbase"

	"redbase/tests/sdk_go/internal/vj"
)

// roundTrip encodes the vector's value with codec c and decodes the expected bytes back.
func roundTrip[T any](c redbase.Codec[T], v map[string]any) error {
	var zero T
	val, err := vj.FromJSON(reflect.TypeOf(zero), v["value"])
	if err != nil {
		return err
	}
	raw, err := c.Encode(val.Interface().(T))
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(raw); got != v["hex"] {
		return fmt.Errorf("%v encodes to %s, want %s", v["value"], got, v["hex"])
	}
	want, _ := hex.DecodeString(v["hex"].(string))
	back, err := c.Decode(want)
	if err != nil {
		return err
	}
	got, err := vj.ToJSON(reflect.ValueOf(back))
	if err != nil {
		return err
	}
	if !vj.Same(got, v["value"]) {
		return fmt.Errorf("%s decodes to %v, want %v", v["hex"], got, v["value"])
	}
	return nil
}

func valueVector(v map[string]any) error {
	switch ty := v["type"]; ty {
	case "string":
		return roundTrip(redbase.StringCodec, v)
	case "bytes":
		return roundTrip(redbase.BytesCodec, v)
	case "i32":
		return roundTrip(redbase.I32Codec, v)
	case "i64":
		return roundTrip(redbase.I64Codec, v)
	case "timestamp-ms":
		return roundTrip(redbase.TimestampMsCodec, v)
	case "counter":
		return roundTrip(redbase.CounterCodec, v)
	case "f32":
		return roundTrip(redbase.F32Codec, v)
	case "f64":
		return roundTrip(redbase.F64Codec, v)
	case "bool":
		return roundTrip(redbase.BoolCodec, v)
	case "json":
		return roundTrip(redbase.JSONCodec, v)
	default:
		return fmt.Errorf("unknown type %v", ty)
	}
}

func qualifierVector(v map[string]any) error {
	table, _ := v["table"].(string)
	field, _ := v["field"].(string)
	info, ok := sdk.Tables[table]
	if !ok {
		return fmt.Errorf("no table %q", table)
	}
	col, ok := vj.ColumnByField(info.Columns, field)
	if !ok {
		return fmt.Errorf("no column %s.%s", table, field)
	}
	partType := col.MethodByName("Qualifier").Type().In(0)
	part, err := vj.FromJSON(partType, v["part"])
	if err != nil {
		return err
	}
	out, err := vj.Call(col, "Qualifier", part)
	if err != nil {
		return err
	}
	q := out[0].Bytes()
	if got := hex.EncodeToString(q); got != v["qualifier_hex"] {
		return fmt.Errorf("part %v: qualifier %s, want %s", v["part"], got, v["qualifier_hex"])
	}
	back, _ := vj.Call(col, "Parse", q)
	if !back[1].Bool() || !back[0].Equal(part) {
		return fmt.Errorf("qualifier %s parses to %v, want %v", v["qualifier_hex"], back[0], v["part"])
	}
	return nil
}

func valueVectors(doc map[string]any, r *result) {
	for _, v := range list(doc, "values") {
		r.check(fmt.Sprintf("value %v %v", v["type"], v["value"]), valueVector(v))
	}
	for _, v := range list(doc, "qualifiers") {
		r.check(fmt.Sprintf("qualifier %v.%v", v["table"], v["field"]), qualifierVector(v))
	}
}
