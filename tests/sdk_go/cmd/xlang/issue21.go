package main

import (
	"context"
	"encoding/hex"
	"fmt"
	"reflect"
	"strconv"

	sdk "redbase.example/sdks/go"

	"redbase/tests/sdk_go/internal/vj"
)

// writeVersions: per entry, one Put of the single field per cell, at the cell's timestamp.
func writeVersions(ctx context.Context, client *sdk.Client, data *dataset) error {
	for _, name := range keysOf(data.Versions) {
		i, t, err := recreate(ctx, client, name)
		if err != nil {
			return err
		}
		for _, e := range data.Versions[name] {
			k, err := key(i, e.Key)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			for _, c := range e.Cells {
				ts, err := strconv.ParseInt(c.Timestamp, 10, 64)
				if err != nil {
					return fmt.Errorf("%s: timestamp %q: %w", name, c.Timestamp, err)
				}
				v, err := values(i, map[string]any{e.Field: c.Value})
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if _, err := vj.Call(t, "Put", ctx, k, v, sdk.WithTimestamp(ts)); err != nil {
					return fmt.Errorf("%s: put at %d: %w", name, ts, err)
				}
			}
		}
	}
	return nil
}

// dumpVersions: per entry, the field's versions from a Get with WithVersions(3), newest first.
func dumpVersions(ctx context.Context, client *sdk.Client, data *dataset) (map[string][]map[string]any, error) {
	out := map[string][]map[string]any{}
	for _, name := range keysOf(data.Versions) {
		i, err := info(name)
		if err != nil {
			return nil, err
		}
		t := reflect.ValueOf(i.Open(client))
		list := []map[string]any{}
		for _, e := range data.Versions[name] {
			k, err := key(i, e.Key)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			raw, err := vj.Call(k, "Encode")
			if err != nil {
				return nil, err
			}
			cells := []map[string]any{}
			got, err := vj.Call(t, "Get", ctx, k, sdk.WithVersions(3))
			if err != nil && !isNotFound(err) {
				return nil, fmt.Errorf("%s: get: %w", name, err)
			}
			if err == nil {
				versions, ok := vj.FieldByTag(got[0].FieldByName("Versions"), e.Field)
				if !ok {
					return nil, fmt.Errorf("%s: no column %s", name, e.Field)
				}
				for n := 0; n < versions.Len(); n++ {
					v := versions.Index(n)
					j, err := vj.ToJSON(v.FieldByName("Value"))
					if err != nil {
						return nil, err
					}
					cells = append(cells, map[string]any{
						"timestamp": strconv.FormatInt(v.FieldByName("Timestamp").Int(), 10),
						"value":     j,
					})
				}
			}
			list = append(list, map[string]any{"key_hex": hex.EncodeToString(raw[0].Bytes()), "field": e.Field, "cells": cells})
		}
		out[name] = list
	}
	return out, nil
}

func isNotFound(err error) bool {
	for err != nil {
		if err == sdk.ErrNotFound {
			return true
		}
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		err = u.Unwrap()
	}
	return false
}

// writeBatch: exactly three batch calls per table: PutMany, DeleteMany, IncrementMany.
func writeBatch(ctx context.Context, client *sdk.Client, data *dataset) error {
	for _, name := range keysOf(data.Batches) {
		b := data.Batches[name]
		i, t, err := recreate(ctx, client, name)
		if err != nil {
			return err
		}
		putMany := t.MethodByName("PutMany")
		puts := reflect.MakeSlice(putMany.Type().In(1), 0, len(b.Rows))
		for _, r := range b.Rows {
			p := reflect.New(puts.Type().Elem()).Elem()
			k, err := key(i, r.Key)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			v, err := values(i, r.Values)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			p.FieldByName("Key").Set(k)
			p.FieldByName("Values").Set(v)
			puts = reflect.Append(puts, p)
		}
		if _, err := vj.Call(t, "PutMany", ctx, puts); err != nil {
			return fmt.Errorf("%s: PutMany: %w", name, err)
		}
		dels := reflect.MakeSlice(reflect.SliceOf(i.Key), 0, len(b.Deletes))
		for _, d := range b.Deletes {
			k, err := key(i, d)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			dels = reflect.Append(dels, k)
		}
		if _, err := vj.Call(t, "DeleteMany", ctx, dels); err != nil {
			return fmt.Errorf("%s: DeleteMany: %w", name, err)
		}
		incMany := t.MethodByName("IncrementMany")
		if !incMany.IsValid() {
			if len(b.Increments) > 0 {
				return fmt.Errorf("%s has no counters to increment", name)
			}
			continue
		}
		incs := reflect.MakeSlice(incMany.Type().In(1), 0, len(b.Increments))
		for _, in := range b.Increments {
			x := reflect.New(incs.Type().Elem()).Elem()
			k, err := key(i, in.Key)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			x.FieldByName("Key").Set(k)
			counters := x.FieldByName("Counters")
			for field, amount := range in.Counters {
				f, ok := vj.FieldByTag(counters, field)
				if !ok {
					return fmt.Errorf("%s: no counter %s", name, field)
				}
				n, err := strconv.ParseInt(amount, 10, 64)
				if err != nil {
					return fmt.Errorf("%s: amount %q: %w", name, amount, err)
				}
				f.SetInt(n)
			}
			incs = reflect.Append(incs, x)
		}
		if _, err := vj.Call(t, "IncrementMany", ctx, incs); err != nil {
			return fmt.Errorf("%s: IncrementMany: %w", name, err)
		}
	}
	return nil
}
