package kit

import (
	"encoding/binary"
	"fmt"
	"reflect"

	"golang.org/x/crypto/blake2b"
)

// StableHash returns a 64-bit hash of v that is the same in every process,
// on every run and on every machine: the first eight bytes (big-endian) of
// the BLAKE2b-256 digest of a canonical, type-tagged encoding of v.
//
// It exists because Go's own hashes are not stable: hash/maphash and the
// runtime's map hash are seeded per process, so a key routed with them lands
// on a different worker after a restart, which is exactly the bug keyed
// state cannot survive. Flink hashes keys with murmur over hashCode for the
// same reason: the hash must be a function of the value alone.
//
// Supported key types, by kind (named types count as their kind):
//   - string
//   - bool
//   - signed integers (int, int8 … int64): tagged as one kind, so int(7) and
//     int64(7) hash the same; the value is what counts, not the width
//   - unsigned integers (uint, uint8 … uint64, uintptr), likewise
//   - arrays of a supported type
//   - structs whose fields are all of supported types (exported or not),
//     encoded field by field in declaration order: composite keys
//
// The tag keeps kinds apart: 1, "1", true and uint(1) all hash differently.
// Anything else (floats, pointers, slices, maps, interfaces holding
// unsupported values, nil) is not a stable key and StableHash panics with a
// message naming the type: a silent fallback would route records wrongly.
func StableHash(v any) uint64 {
	buf, err := AppendStableKey(nil, v)
	if err != nil {
		panic("kit.StableHash: " + err.Error())
	}
	sum := blake2b.Sum256(buf)
	return binary.BigEndian.Uint64(sum[:8])
}

// Tags of the canonical encoding. They are part of the hash's definition:
// changing one changes every hash, and so every key's partition.
const (
	tagString byte = 's'
	tagBool   byte = 'b'
	tagInt    byte = 'i'
	tagUint   byte = 'u'
	tagArray  byte = 'a'
	tagStruct byte = 'r'
)

// AppendStableKey appends the canonical encoding of v that StableHash
// digests to buf and returns the extended buffer, or an error naming the
// unsupported type. Every value is a tag byte followed by a fixed-width or
// length-prefixed body, so no two different values share an encoding.
func AppendStableKey(buf []byte, v any) ([]byte, error) {
	if v == nil {
		return buf, fmt.Errorf("unsupported key <nil>: a key must be a string, bool, integer, or an array or struct of those")
	}
	return appendValue(buf, reflect.ValueOf(v))
}

func appendValue(buf []byte, v reflect.Value) ([]byte, error) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		buf = append(buf, tagString)
		buf = binary.BigEndian.AppendUint64(buf, uint64(len(s)))
		return append(buf, s...), nil
	case reflect.Bool:
		b := byte(0)
		if v.Bool() {
			b = 1
		}
		return append(buf, tagBool, b), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		buf = append(buf, tagInt)
		return binary.BigEndian.AppendUint64(buf, uint64(v.Int())), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		buf = append(buf, tagUint)
		return binary.BigEndian.AppendUint64(buf, v.Uint()), nil
	case reflect.Array:
		buf = append(buf, tagArray)
		buf = binary.BigEndian.AppendUint64(buf, uint64(v.Len()))
		for i := range v.Len() {
			var err error
			if buf, err = appendValue(buf, v.Index(i)); err != nil {
				return buf, err
			}
		}
		return buf, nil
	case reflect.Struct:
		buf = append(buf, tagStruct)
		buf = binary.BigEndian.AppendUint64(buf, uint64(v.NumField()))
		for i := range v.NumField() {
			var err error
			if buf, err = appendValue(buf, v.Field(i)); err != nil {
				return buf, fmt.Errorf("field %s of %s: %w", v.Type().Field(i).Name, v.Type(), err)
			}
		}
		return buf, nil
	case reflect.Interface:
		if v.IsNil() {
			return buf, fmt.Errorf("unsupported key <nil>")
		}
		return appendValue(buf, v.Elem())
	}
	return buf, fmt.Errorf("unsupported key type %s (kind %s): a key must be a string, bool, integer, or an array or struct of those", v.Type(), v.Kind())
}
