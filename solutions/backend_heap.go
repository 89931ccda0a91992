package solutions

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"

	"github.com/RaduBerinde/btreemap"
)

// HeapBackend is a StateBackend in memory: a B-tree of byte keys, Flink's
// HashMapStateBackend. It is fast, and it holds all of its state on the
// heap: the heap grows with the state. Its zero value is not usable; call
// NewHeapBackend or RestoreHeapBackend.
type HeapBackend struct {
	tree *btreemap.BTreeMap[string, []byte]
}

// NewHeapBackend returns an empty HeapBackend.
func NewHeapBackend() *HeapBackend {
	// strings.Compare orders keys by their bytes, as every StateBackend must.
	return &HeapBackend{tree: btreemap.New[string, []byte](32, strings.Compare)}
}

// Get returns the value stored under key. The value is the backend's: do
// not change it.
func (h *HeapBackend) Get(key []byte) ([]byte, bool, error) {
	_, v, ok := h.tree.Get(string(key))
	return v, ok, nil
}

// Set stores a copy of value under a copy of key.
func (h *HeapBackend) Set(key, value []byte) error {
	h.tree.ReplaceOrInsert(string(key), bytes.Clone(value))
	return nil
}

// Delete removes key.
func (h *HeapBackend) Delete(key []byte) error {
	h.tree.Delete(string(key))
	return nil
}

// Scan calls fn for every entry with start ≤ key < end, in key order (nil
// end: no upper bound).
func (h *HeapBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	stop := btreemap.Max[string]()
	if end != nil {
		stop = btreemap.LT(string(end))
	}
	for k, v := range h.tree.Ascend(btreemap.GE(string(start)), stop) {
		if err := fn([]byte(k), v); err != nil {
			return err
		}
	}
	return nil
}

// heapCheckpointFile is the file a HeapBackend checkpoint is written to,
// in the checkpoint's directory. Its layout: every entry in key order as a
// uvarint key length, the key, a uvarint value length, the value; then the
// CRC-32C of all that, 4 bytes big-endian.
const heapCheckpointFile = "state"

// Checkpoint writes every entry to a file in the new directory dir and
// syncs it: a heap backend's checkpoint is always a full copy.
func (h *HeapBackend) Checkpoint(dir string) error {
	var buf []byte
	for k, v := range h.tree.Ascend(btreemap.Min[string](), btreemap.Max[string]()) {
		buf = appendString(buf, k)
		buf = appendString(buf, string(v))
	}
	buf = binary.BigEndian.AppendUint32(buf, crc32.Checksum(buf, castagnoli))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	return writeFileSynced(filepath.Join(dir, heapCheckpointFile), buf)
}

// RestoreHeapBackend returns a HeapBackend holding the state that
// Checkpoint wrote to dir, or an error if dir holds no such checkpoint or
// a damaged one. The backend shares nothing with dir.
func RestoreHeapBackend(dir string) (*HeapBackend, error) {
	data, err := os.ReadFile(filepath.Join(dir, heapCheckpointFile))
	if err != nil {
		return nil, fmt.Errorf("backend: restore heap backend: %w", err)
	}
	if len(data) < 4 || crc32.Checksum(data[:len(data)-4], castagnoli) != binary.BigEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("backend: restore heap backend from %s: the checkpoint is damaged (checksum mismatch)", dir)
	}
	h := NewHeapBackend()
	r := &reader{buf: data[:len(data)-4]}
	for len(r.buf) > 0 && r.err == nil {
		k, v := r.bytes(), r.bytes()
		if r.err == nil {
			h.tree.ReplaceOrInsert(string(k), bytes.Clone(v))
		}
	}
	if r.err != nil {
		return nil, fmt.Errorf("backend: restore heap backend from %s: %w", dir, r.err)
	}
	return h, nil
}

// Close does nothing: the garbage collector takes the state.
func (h *HeapBackend) Close() error { return nil }

// writeFileSynced writes data to a new file at path and syncs the file and
// its directory, so that the checkpoint is on the disk when it returns.
func writeFileSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	err = errors.Join(err, f.Sync(), f.Close())
	if err != nil {
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	return errors.Join(d.Sync(), d.Close())
}
