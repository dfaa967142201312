package redbase

import "bytes"

// Keys is what a scan reads: a KeyRange, or a table's XKeys() bounds, resolved when the scan
// starts (so a bounds error is the scanner's Err).
type Keys interface {
	Resolve() (KeyRange, error)
}

// Resolve returns r itself.
func (r KeyRange) Resolve() (KeyRange, error) { return r, nil }

// bound is one component's constraint: a value, an inclusive [lo, hi] pair, or (a string)
// every value starting with lo.
type bound struct {
	set, isRange, startsWith bool
	lo, hi                   any
}

// Bounds names key components to select rows by: leading components by value, then at most one
// component by an inclusive (low, high) pair or, a string, by a starts-with. Values are
// immutable: every method returns a copy.
// Generated XKeyBounds types wrap it with one typed method per component.
type Bounds struct {
	spec *KeySpec
	b    []bound
}

// NewBounds returns bounds with no component given: every row.
func NewBounds(spec *KeySpec) Bounds { return Bounds{spec: spec} }

func (b Bounds) with(i int, x bound) Bounds {
	out := Bounds{spec: b.spec, b: make([]bound, len(b.spec.Components))}
	copy(out.b, b.b)
	out.b[i] = x
	return out
}

// Eq binds component i to v.
func (b Bounds) Eq(i int, v any) Bounds { return b.with(i, bound{set: true, lo: v}) }

// StartsWith binds string component i to every value starting with prefix.
func (b Bounds) StartsWith(i int, prefix string) Bounds {
	return b.with(i, bound{set: true, startsWith: true, lo: prefix})
}

// Between binds component i to the values from lo to hi, both included.
func (b Bounds) Between(i int, lo, hi any) Bounds {
	return b.with(i, bound{set: true, isRange: true, lo: lo, hi: hi})
}

func (b Bounds) hashed(i int) bool {
	if b.spec.Hash == nil {
		return false
	}
	for _, h := range b.spec.Hash.Components {
		if h == i {
			return true
		}
	}
	return false
}

// leading checks the order of what is given: the values bound by equality, and the index of the
// ranged component (-1: none).
func (b Bounds) leading() (values []any, ranged int, err error) {
	ranged = -1
	comps := b.spec.Components
	for i := 0; i < len(b.b); i++ {
		x := b.b[i]
		if !x.set {
			for j := i + 1; j < len(b.b); j++ {
				if b.b[j].set {
					why := "components bind in key order"
					if b.hashed(i) {
						why = "the hash prefix is computed from it"
					}
					return nil, -1, keyErr(comps[i].Name, "must be given to bind %s in the %s key (%s)",
						comps[j].Name, b.spec.Table, why)
				}
			}
			break
		}
		if x.isRange || x.startsWith {
			what := "range"
			if x.startsWith {
				what = "starts-with"
			}
			// The first component bound after the range is refused, whatever lies between.
			for j := i + 1; j < len(b.b); j++ {
				if b.b[j].set {
					return nil, -1, keyErr(comps[j].Name, "cannot be bound after the %s on %s: only the last bound component may be a %s",
						what, comps[i].Name, what)
				}
			}
			if b.hashed(i) {
				return nil, -1, keyErr(comps[i].Name, "is hashed into the %s key: its hash is computed from the whole value, so give one value, not a %s",
					b.spec.Table, what)
			}
			return values, i, nil
		}
		values = append(values, x.lo)
	}
	return values, ranged, nil
}

// Range is the KeyRange of the bound rows: one range per salt bucket.
func (b Bounds) Range() (KeyRange, error) {
	values, ranged, err := b.leading()
	if err != nil {
		return KeyRange{}, err
	}
	if ranged < 0 {
		return PrefixRange(b.spec, values)
	}
	if b.b[ranged].startsWith {
		return b.startsWithRange(values, ranged)
	}
	if err := b.checkOrdered(ranged); err != nil {
		return KeyRange{}, err
	}
	x := b.b[ranged]
	lo, err := b.spec.Prefixes(append(append([]any(nil), values...), x.lo))
	if err != nil {
		return KeyRange{}, err
	}
	hi, err := b.spec.Prefixes(append(append([]any(nil), values...), x.hi))
	if err != nil {
		return KeyRange{}, err
	}
	if above(x.lo, x.hi) {
		return KeyRange{}, keyErr(b.spec.Components[ranged].Name, "the range's low %#v is above its high %#v", x.lo, x.hi)
	}
	// After the ranged component either more components follow (the prefix ends with the
	// separator or a fixed width, so the next prefix bounds it) or the prefix is a whole key
	// (and the first key after it is that key plus 0x00).
	more := !b.spec.endsAfter(ranged + 1)
	r := KeyRange{Ranges: make([]Range, len(lo))}
	for i := range lo {
		start, end := lo[i], hi[i]
		if bytes.Compare(start, end) > 0 { // a descending component
			start, end = end, start
		}
		stop := append(append([]byte(nil), end...), 0)
		if more {
			stop = NextPrefix(end)
		}
		r.Ranges[i] = Range{Start: start, Stop: stop}
	}
	return r, nil
}

// startsWithRange is the rows whose leading components equal values and whose string component
// at starts with its prefix: the leading prefix, then the bytes every field of such a string
// starts with, up to their next prefix (docs/schema.md, "Prefixes and ranges").
func (b Bounds) startsWithRange(values []any, at int) (KeyRange, error) {
	c := &b.spec.Components[at]
	if c.Reverse != "" {
		return KeyRange{}, keyErr(c.Name, "the %s key stores it reversed (%s), so values starting alike do not share a key prefix:"+
			" give it one value, not a starts-with", b.spec.Table, c.Reverse)
	}
	if b.spec.Hash != nil {
		for _, h := range b.spec.Hash.Components {
			if h >= len(values) {
				return KeyRange{}, keyErr(b.spec.Components[h].Name, "must be given: the %s key's hash prefix is computed from it", b.spec.Table)
			}
		}
	}
	prefix, _ := b.b[at].lo.(string)
	tail, err := b.spec.StringPrefix(c, prefix)
	if err != nil {
		return KeyRange{}, err
	}
	heads, err := b.spec.Prefixes(values)
	if err != nil {
		return KeyRange{}, err
	}
	r := KeyRange{Ranges: make([]Range, len(heads))}
	for i, h := range heads {
		start := append(append([]byte(nil), h...), tail...)
		r.Ranges[i] = Range{Start: start, Stop: NextPrefix(start)}
	}
	return r, nil
}

// checkOrdered refuses a range on component i where the key's byte order is not its value
// order: start and stop rows could then only select the wrong rows. (Hashed components are
// refused by leading.)
func (b Bounds) checkOrdered(i int) error {
	c := b.spec.Components[i]
	key := "the " + b.spec.Table + " key"
	if c.Reverse != "" {
		return keyErr(c.Name, "%s stores it reversed (%s), so rows are not in its value order: give it one value, not a range",
			key, c.Reverse)
	}
	if b.spec.Layout != "separated" {
		return nil
	}
	sep := b.spec.Separator
	text := c.Type == "string" || c.Type == "bytes"
	switch {
	case text && !b.spec.endsAfter(i+1):
		return keyErr(c.Name, "%s is separated and more components follow it, so rows are not in its value order"+
			" ('k0%s' sorts before 'k%s'): a range works on the last component or on a number with a width", key, sep, sep)
	case c.Type == "string" && c.Escape && len(sep) == 1 && inCharset(c.Charset, rune(sep[0])):
		return keyErr(c.Name, "%s escapes '%s' and '\\' in it, so rows are not in its value order ('a\\%s' sorts before 'a]'):"+
			" give it one value, not a range", key, sep, sep)
	case !text && c.Width == 0:
		return keyErr(c.Name, "%s is separated and writes it without a width, so rows are not in its value order"+
			" ('10' sorts before '9'): give it one value, not a range", key)
	}
	return nil
}

// above reports whether a is above b in value order (strings in code point order, as UTF-8
// sorts). Values of other or mixed types are not compared: encoding has refused them already.
func above(a, b any) bool {
	switch x := a.(type) {
	case string:
		y, ok := b.(string)
		return ok && x > y
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Compare(x, y) > 0
	case int32:
		y, ok := b.(int32)
		return ok && x > y
	case int64:
		y, ok := b.(int64)
		return ok && x > y
	case float32:
		y, ok := b.(float32)
		return ok && x > y
	case float64:
		y, ok := b.(float64)
		return ok && x > y
	}
	return false
}

// Resolve is Range, so bounds can be given to Scan directly.
func (b Bounds) Resolve() (KeyRange, error) { return b.Range() }

// PrefixFilter is a PrefixFilter on the key prefix of the components bound by value, then
// optionally a starts-with (no range); a salted key has one prefix per bucket:
// (PrefixFilter(..)) OR (PrefixFilter(..)) ...
func (b Bounds) PrefixFilter() Filter {
	values, ranged, err := b.leading()
	if err != nil {
		return Filter{err: err}
	}
	var prefixes [][]byte
	switch {
	case ranged >= 0 && b.b[ranged].startsWith:
		r, err := b.startsWithRange(values, ranged)
		if err != nil {
			return Filter{err: err}
		}
		for _, x := range r.Ranges {
			prefixes = append(prefixes, x.Start)
		}
	case ranged >= 0:
		return filterErr("a prefix filter takes components by value, not the range on " + b.spec.Components[ranged].Name)
	default:
		if prefixes, err = b.spec.Prefixes(values); err != nil {
			return Filter{err: err}
		}
	}
	fs := make([]Filter, len(prefixes))
	for i, p := range prefixes {
		fs[i] = RowPrefixFilter(p)
	}
	return AnyOf(fs...)
}

// everyRow resolves keys, reading the whole table (one range per salt bucket) for a nil or
// zero KeyRange.
type everyRow struct {
	spec *KeySpec
	keys Keys
}

func (e everyRow) Resolve() (KeyRange, error) {
	if e.keys != nil {
		r, err := e.keys.Resolve()
		if err != nil || len(r.Ranges) > 0 {
			return r, err
		}
	}
	return PrefixRange(e.spec, nil)
}

// OrEveryRow is keys, or every row of the table when keys is nil or the zero KeyRange.
func OrEveryRow(spec *KeySpec, keys Keys) Keys { return everyRow{spec: spec, keys: keys} }
