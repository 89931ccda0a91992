package windowtest

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strconv"
	"testing"
)

// frame seals body as the reference does: magic, version, an 8-byte
// big-endian length, the body's CRC-32C, the body.
func frame(body []byte) []byte {
	out := append([]byte("FLKS\x01"), binary.BigEndian.AppendUint64(nil, uint64(len(body)))...)
	out = binary.BigEndian.AppendUint32(out, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)))
	return append(out, body...)
}

// trailer seals body another usual way: magic, version, a uvarint length,
// the body, and an IEEE CRC-32 of all that, little-endian, at the end.
func trailer(body []byte) []byte {
	out := append([]byte("FLKS\x01"), binary.AppendUvarint(nil, uint64(len(body)))...)
	out = append(out, body...)
	return binary.LittleEndian.AppendUint32(out, crc32.ChecksumIEEE(out))
}

// TestForgeValue: a value found once, in any usual encoding, is replaced
// and the snapshot sealed again so that its checksum holds; a value found
// twice, or a checksum of no usual kind, is no forgery.
func TestForgeValue(t *testing.T) {
	const start, off = 123456789500, 123456789501
	for _, c := range []struct {
		name string
		body []byte
	}{
		{"big-endian", append([]byte("a key of a window, long enough to be most of the snapshot\x00"), binary.BigEndian.AppendUint64(nil, start)...)},
		{"varint", append([]byte("a key of a window, long enough to be most of the snapshot\x00"), binary.AppendVarint(nil, start)...)},
		{"decimal", []byte(`{"windows":[{"start":123456789500,"count":3}]}`)},
	} {
		for name, seal := range map[string]func([]byte) []byte{"frame": frame, "trailer": trailer} {
			snap := seal(c.body)
			forged, ok := ForgeValue(snap, start, off)
			if !ok {
				t.Errorf("%s in a %s: no forgery", c.name, name)
				continue
			}
			want := seal(bytes.Replace(c.body, bodyOf(c.name, start), bodyOf(c.name, off), 1))
			if !bytes.Equal(forged, want) {
				t.Errorf("%s in a %s: forged\n%x\nwant\n%x", c.name, name, forged, want)
			}
		}
	}
	twice := frame(append(binary.BigEndian.AppendUint64(nil, start), binary.BigEndian.AppendUint64(nil, start)...))
	if _, ok := ForgeValue(twice, start, off); ok {
		t.Error("a value found twice was forged: which one is meant is not known")
	}
	unsealed := append([]byte("FLKS\x01"), binary.BigEndian.AppendUint64(nil, start)...)
	if _, ok := ForgeValue(unsealed, start, off); ok {
		t.Error("a snapshot with no usual checksum was forged")
	}
}

func bodyOf(encoding string, v int64) []byte {
	switch encoding {
	case "big-endian":
		return binary.BigEndian.AppendUint64(nil, uint64(v))
	case "varint":
		return binary.AppendVarint(nil, v)
	}
	return []byte(strconv.FormatInt(v, 10))
}
