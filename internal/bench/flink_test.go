package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// peerOutput is go test -bench output of BenchmarkFlinkPeer, two runs of
// the whole stream and one of a shorter one, which de bench does not read.
const peerOutput = `goos: linux
pkg: github.com/flk-byo/course/flink/parity
BenchmarkFlinkPeer/events-10000-2     	       1	1704022433 ns/op	     43000 flink-hashmap-cpu-ns/event	     81093 flink-hashmap-ns/event	     28661 flink-hashmap-records-ns/event	       230.1 flink-hashmap/reference	     70000 flink-rocksdb-cpu-ns/event	     65727 flink-rocksdb-ns/event	     42696 flink-rocksdb-records-ns/event	       374.5 flink-rocksdb/reference	       186.9 reference-cpu-ns/event	       186.6 reference-ns/event
BenchmarkFlinkPeer/events-1000000-2   	       1	30183862472 ns/op	      2000 flink-hashmap-cpu-ns/event	      1510 flink-hashmap-ns/event	      1500 flink-hashmap-records-ns/event	         5.714 flink-hashmap/reference	     40000 flink-rocksdb-cpu-ns/event	     27805 flink-rocksdb-ns/event	     30000 flink-rocksdb-records-ns/event	       114.3 flink-rocksdb/reference	       350 reference-cpu-ns/event	       300 reference-ns/event
BenchmarkFlinkPeer/events-1000000     	       1	30183862472 ns/op	      3000 flink-hashmap-cpu-ns/event	      1510 flink-hashmap-ns/event	      1800 flink-hashmap-records-ns/event	         6.000 flink-hashmap/reference	     50000 flink-rocksdb-cpu-ns/event	     27805 flink-rocksdb-ns/event	     30000 flink-rocksdb-records-ns/event	       100.0 flink-rocksdb/reference	       500 reference-cpu-ns/event	       300 reference-ns/event
PASS
ok  	github.com/flk-byo/course/flink/parity	176.872s
`

// TestFlinkPeerRatiosPairEachRunsSamples certifies that de bench --full
// reads only the whole stream's runs of BenchmarkFlinkPeer, and prints
// each variant's cost over the reference's from the same run, with the
// range over the runs: CPU time, and wall time of the records.
func TestFlinkPeerRatiosPairEachRunsSamples(t *testing.T) {
	samples := ParseFlinkPeer(strings.NewReader(peerOutput))
	require.Len(t, samples, 2)
	var out bytes.Buffer
	ReportFlinkPeer(&out, samples)
	got := out.String()
	// hashmap: 2000/350 = 5.71, 3000/500 = 6.00; wall 1500/300 = 5, 1800/300 = 6.
	assert.Contains(t, got, "flink-hashmap (HashMapStateBackend): CPU 5.86× (425 → 2500 ns/event; 5.71–6.00× over 2 runs); wall time 5.50× (300 → 1650 ns/event; 5.00–6.00× over 2 runs)\n")
	// rocksdb: 40000/350 = 114, 50000/500 = 100.
	assert.Contains(t, got, "flink-rocksdb (EmbeddedRocksDBStateBackend): CPU 107× (425 → 45000 ns/event; 100–114× over 2 runs)")
}

// TestFlinkPeerFailureSaysWhy certifies that a failed run's error quotes
// go test from the benchmark's failure on.
func TestFlinkPeerFailureSaysWhy(t *testing.T) {
	out := "goos: linux\n--- FAIL: BenchmarkFlinkPeer/events-1000000-2\n    peer_bench_test.go:180: flink-rocksdb's results ... are not the reference's:\nFAIL\n"
	assert.True(t, strings.HasPrefix(failureOf(out), "--- FAIL: BenchmarkFlinkPeer/events-1000000-2\n    peer_bench_test.go:180: flink-rocksdb's results"))
}
