package redbase

// Range is one scan range: Start inclusive, Stop exclusive (nil: to the end of the table).
type Range struct {
	Start, Stop []byte
}

// KeyRange is the rows to scan: one Range per salt bucket (one for an unsalted table). The
// zero KeyRange means every row of the table.
type KeyRange struct {
	Ranges []Range
}

// NextPrefix returns the smallest key after every key starting with prefix (nil: none).
func NextPrefix(prefix []byte) []byte {
	b := append([]byte(nil), prefix...)
	for len(b) > 0 && b[len(b)-1] == 0xFF {
		b = b[:len(b)-1]
	}
	if len(b) == 0 {
		return nil
	}
	b[len(b)-1]++
	return b
}

// PrefixRange is every row whose leading components equal leading (whole components: when
// they make a whole key, that row alone, since in a separated key "...|k" is a prefix of
// "...|k0", another value).
func PrefixRange(spec *KeySpec, leading []any) (KeyRange, error) {
	prefixes, err := spec.Prefixes(leading)
	if err != nil {
		return KeyRange{}, err
	}
	whole := len(leading) > 0 && spec.endsAfter(len(leading))
	r := KeyRange{Ranges: make([]Range, len(prefixes))}
	for i, p := range prefixes {
		stop := NextPrefix(p)
		if whole {
			stop = append(append([]byte(nil), p...), 0)
		}
		r.Ranges[i] = Range{Start: p, Stop: stop}
	}
	return r, nil
}

// endsAfter is whether a key holding the first n components ends there (no kept component
// follows).
func (s *KeySpec) endsAfter(n int) bool {
	for _, c := range s.Components[n:] {
		if c.Kept {
			return false
		}
	}
	return true
}

// Between is from start's first row (inclusive) up to stop's first row (exclusive): both
// prefixes of the same table.
func Between(start, stop KeyRange) (KeyRange, error) {
	if len(start.Ranges) != len(stop.Ranges) {
		return KeyRange{}, keyErr("", "ranges of different tables")
	}
	r := KeyRange{Ranges: make([]Range, len(start.Ranges))}
	for i := range start.Ranges {
		r.Ranges[i] = Range{Start: start.Ranges[i].Start, Stop: stop.Ranges[i].Start}
	}
	return r, nil
}
