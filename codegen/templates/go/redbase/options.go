package redbase

// Options of reads (versions, time range, columns) and writes (timestamp, chunk bounds), as
// functional options so a call without any keeps its short form: Get(ctx, key).

// TimeRange is HBase's [Min, Max) in milliseconds since the epoch.
type TimeRange struct {
	Min, Max int64
}

// Selector is what a read may be narrowed to: one typed column (a table's XColumns.Field) or
// a whole family (Family("t")).
type Selector interface {
	selection() (family, qualifier []byte)
}

// Family selects every column of one column family.
type Family string

func (f Family) selection() ([]byte, []byte) { return []byte(f), nil }

func (c Column[T]) selection() ([]byte, []byte) { return c.Family, c.Qualifier }

// ReadOptions are what ReadOption functions set; ScanOptions carry the same fields.
type ReadOptions struct {
	// Versions > 0 reads up to that many versions of each column (HBase's maxVersions);
	// 0 reads the newest only.
	Versions int
	// TimeRange, when set, reads only cells with a timestamp in [Min, Max).
	TimeRange *TimeRange
	// Columns, when set, reads only these columns and families.
	Columns []Selector
}

// ReadOption tunes one Get.
type ReadOption func(*ReadOptions)

// WithVersions reads up to n versions of each column, newest first (the family's
// max_versions bounds what the server keeps).
func WithVersions(n int) ReadOption { return func(o *ReadOptions) { o.Versions = n } }

// WithTimeRange reads only cells written at timestamps in [min, max) (milliseconds).
func WithTimeRange(min, max int64) ReadOption {
	return func(o *ReadOptions) { o.TimeRange = &TimeRange{Min: min, Max: max} }
}

// AtTimestamp reads only cells written at exactly ts: the time range [ts, ts+1).
func AtTimestamp(ts int64) ReadOption {
	return func(o *ReadOptions) { o.TimeRange = &TimeRange{Min: ts, Max: ts + 1} }
}

// WithColumns reads only the given columns and families.
func WithColumns(cols ...Selector) ReadOption {
	return func(o *ReadOptions) { o.Columns = append(o.Columns, cols...) }
}

func readOptions(opts []ReadOption) ReadOptions {
	var o ReadOptions
	for _, f := range opts {
		f(&o)
	}
	return o
}

// The default bounds of one batch call: HBase's client-side write buffer is of the same
// order, and a Thrift frame of a few MiB stays well under any gateway's limit.
const (
	DefaultChunkRows  = 1000
	DefaultChunkBytes = 4 << 20
)

// WriteOptions are what WriteOption functions set.
type WriteOptions struct {
	// Timestamp, when set, is the cells' timestamp (Put, PutMany) or the newest timestamp a
	// Delete removes (every version at or before it).
	Timestamp *int64
	// ChunkRows and ChunkBytes bound one batch call: rows, and bytes of cell data.
	ChunkRows, ChunkBytes int
}

// WriteOption tunes one write.
type WriteOption func(*WriteOptions)

// WithTimestamp writes the cells at ts (ms) instead of the server's clock; for deletes,
// removes every version at or before ts.
func WithTimestamp(ts int64) WriteOption { return func(o *WriteOptions) { o.Timestamp = &ts } }

// WithChunkRows bounds the rows of one batch call (default 1,000).
func WithChunkRows(n int) WriteOption { return func(o *WriteOptions) { o.ChunkRows = n } }

// WithChunkBytes bounds the cell data of one batch call (default 4 MiB).
func WithChunkBytes(n int) WriteOption { return func(o *WriteOptions) { o.ChunkBytes = n } }

// ApplyWriteOptions collects opts over the defaults.
func ApplyWriteOptions(opts []WriteOption) WriteOptions {
	o := WriteOptions{ChunkRows: DefaultChunkRows, ChunkBytes: DefaultChunkBytes}
	for _, f := range opts {
		f(&o)
	}
	if o.ChunkRows <= 0 {
		o.ChunkRows = DefaultChunkRows
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	return o
}
