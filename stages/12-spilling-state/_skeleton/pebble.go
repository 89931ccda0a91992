package lab

// MinPebbleBudget is the smallest memory budget OpenPebbleBackend accepts.
const MinPebbleBudget = 1 << 20

// PebbleBackend is a StateBackend on disk in Pebble
// (github.com/cockroachdb/pebble/v2: go get it), Flink's
// EmbeddedRocksDBStateBackend.
type PebbleBackend struct {
	// TODO: your fields here
}

// OpenPebbleBackend opens (creating it if needed) the Pebble database in
// dir with at most budget bytes of memory for its memtables and block
// cache: as state grows past the budget, the Go heap must grow by less
// than the budget plus 1 MiB. A budget below MinPebbleBudget is an error.
func OpenPebbleBackend(dir string, budget int64) (*PebbleBackend, error) {
	panic("TODO: pebble.Open with a cache and memtables sized from budget")
}

// RestorePebbleBackend copies the checkpoint in checkpoint into the new
// directory dir and opens it there as OpenPebbleBackend does. The
// checkpoint itself is never opened or changed, so it can be restored
// again. A missing checkpoint is an error, never a panic.
func RestorePebbleBackend(checkpoint, dir string, budget int64) (*PebbleBackend, error) {
	panic("TODO: copy the checkpoint's files, then open the copy")
}

func (b *PebbleBackend) Get(key []byte) ([]byte, bool, error) {
	panic("TODO: db.Get, copying the value before closing")
}

func (b *PebbleBackend) Set(key, value []byte) error {
	panic("TODO: db.Set")
}

func (b *PebbleBackend) Delete(key []byte) error {
	panic("TODO: db.Delete")
}

func (b *PebbleBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	panic("TODO: a bounded iterator")
}

// Checkpoint is Pebble's own DB.Checkpoint, with the write-ahead log
// flushed first: it hard-links the immutable files, so it costs what
// changed since the last one.
func (b *PebbleBackend) Checkpoint(dir string) error {
	panic("TODO: db.Checkpoint")
}

func (b *PebbleBackend) Close() error {
	panic("TODO: db.Close")
}
