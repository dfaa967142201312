package redbase

import (
	"bytes"
	"sort"
)

// Version is one timestamped value of a column, as a read with WithVersions returns them.
type Version[T any] struct {
	Timestamp int64 // milliseconds since the epoch
	Value     T
}

// Newest returns the newest cell of each column of cells (the newest timestamp; of equal
// timestamps the first the server sent), in the order the columns first appear.
func Newest(cells []Cell) []Cell {
	out := make([]Cell, 0, len(cells))
	at := map[string]int{}
	for _, c := range cells {
		k := string(c.Family) + "\x00" + string(c.Qualifier)
		if i, seen := at[k]; seen {
			if c.Timestamp > out[i].Timestamp {
				out[i] = c
			}
			continue
		}
		at[k] = len(out)
		out = append(out, c)
	}
	return out
}

// SortCells orders cells by family and qualifier, then newest first (the order HBase returns
// them in; the sort is stable for equal timestamps).
func SortCells(cells []Cell) {
	sort.SliceStable(cells, func(i, j int) bool {
		a, b := cells[i], cells[j]
		if c := bytes.Compare(a.Family, b.Family); c != 0 {
			return c < 0
		}
		if c := bytes.Compare(a.Qualifier, b.Qualifier); c != 0 {
			return c < 0
		}
		return a.Timestamp > b.Timestamp
	})
}

// AppendVersion adds cell's value and timestamp to *dst (cells come sorted, newest first).
func AppendVersion[T any](dst *[]Version[T], c Column[T], cell Cell) error {
	v, err := c.Codec.Decode(cell.Value)
	if err != nil {
		return fieldErr(c.Field, err)
	}
	*dst = append(*dst, Version[T]{Timestamp: cell.Timestamp, Value: v})
	return nil
}

// AppendPartVersion adds cell's value and timestamp under its qualifier's part.
func AppendPartVersion[P Part, T any](dst *map[P][]Version[T], c PatternColumn[P, T], cell Cell) error {
	part, ok := c.Match(cell)
	if !ok {
		return nil
	}
	v, err := c.Codec.Decode(cell.Value)
	if err != nil {
		return fieldErr(c.Field, err)
	}
	if *dst == nil {
		*dst = map[P][]Version[T]{}
	}
	(*dst)[part] = append((*dst)[part], Version[T]{Timestamp: cell.Timestamp, Value: v})
	return nil
}
