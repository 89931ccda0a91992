package solutions

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// HeapBackend is a StateBackend in memory, Flink's HashMapStateBackend. It
// is fast, and it holds all of its state on the heap: the heap grows with
// the state. Its zero value is not usable; call NewHeapBackend or
// RestoreHeapBackend.
//
// The values are in a map. The keys are also kept in order, for Scan, as
// a sorted slice cut into chunks of at most chunkMax keys: inserting into
// one sorted slice moves, on average, half of all the keys (seen IDs are
// most of them, and they arrive in no order), while inserting into a chunk
// moves at most chunkMax. It is a B-tree of two levels, simple enough to
// read in one go.
type HeapBackend struct {
	values map[string][]byte
	// chunks holds every key of values once, in ascending order: each
	// chunk is sorted and non-empty, and every key of a chunk is below
	// every key of the next.
	chunks [][]string
}

// chunkMax is the most keys a chunk holds before it splits in two.
const chunkMax = 512

// NewHeapBackend returns an empty HeapBackend.
func NewHeapBackend() *HeapBackend {
	return &HeapBackend{values: make(map[string][]byte)}
}

// Get returns a copy of the value stored under key.
func (h *HeapBackend) Get(key []byte) ([]byte, bool, error) {
	v, ok := h.values[string(key)]
	// A copy: the caller owns what Get returns, and may write into it.
	return bytes.Clone(v), ok, nil
}

// Set stores a copy of value under a copy of key.
func (h *HeapBackend) Set(key, value []byte) error {
	k := string(key)
	if _, ok := h.values[k]; !ok {
		h.insertKey(k)
	}
	h.values[k] = bytes.Clone(value)
	return nil
}

// Delete removes key.
func (h *HeapBackend) Delete(key []byte) error {
	k := string(key)
	if _, ok := h.values[k]; !ok {
		return nil
	}
	delete(h.values, k)
	i := h.chunkFor(k)
	c := h.chunks[i]
	j, _ := slices.BinarySearch(c, k)
	if c = slices.Delete(c, j, j+1); len(c) == 0 {
		h.chunks = slices.Delete(h.chunks, i, i+1)
	} else {
		h.chunks[i] = c
	}
	return nil
}

// Scan calls fn for every entry with start ≤ key < end, in key order (an
// empty end: no upper bound).
func (h *HeapBackend) Scan(start, end []byte, fn func(key, value []byte) error) error {
	if len(h.chunks) == 0 {
		return nil
	}
	from, to := string(start), string(end)
	i := h.chunkFor(from)
	j, _ := slices.BinarySearch(h.chunks[i], from)
	for ; i < len(h.chunks); i, j = i+1, 0 {
		for _, k := range h.chunks[i][j:] {
			if len(end) > 0 && k >= to {
				return nil
			}
			if err := fn([]byte(k), h.values[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunkFor returns the index of the chunk where key is or belongs: the
// last chunk whose first key is at most key, or the first chunk. There
// must be one.
func (h *HeapBackend) chunkFor(key string) int {
	i := sort.Search(len(h.chunks), func(i int) bool { return h.chunks[i][0] > key })
	return max(i-1, 0)
}

// insertKey adds key, which is not in h yet, to its chunk, splitting the
// chunk in two when it grows past chunkMax.
func (h *HeapBackend) insertKey(key string) {
	if len(h.chunks) == 0 {
		h.chunks = [][]string{{key}}
		return
	}
	i := h.chunkFor(key)
	c := h.chunks[i]
	j, _ := slices.BinarySearch(c, key)
	c = slices.Insert(c, j, key)
	if len(c) > chunkMax {
		// The upper half gets an array of its own: appends to the lower
		// half reuse the old one.
		upper := slices.Clone(c[len(c)/2:])
		c = c[:len(c)/2]
		h.chunks = slices.Insert(h.chunks, i+1, upper)
	}
	h.chunks[i] = c
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
	for _, c := range h.chunks {
		for _, k := range c {
			buf = appendString(buf, k)
			buf = appendString(buf, string(h.values[k]))
		}
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
			h.Set(k, v)
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
