package bench

import (
	"strings"
	"testing"
)

func TestParseAveragesEachPackage(t *testing.T) {
	out := `goos: linux
pkg: github.com/flk-byo/course/lab
BenchmarkDeProcessor-2   	       1	1000000000 ns/op	         3.000 allocs/event	      1000 ns/event	365377208 B/op	 3000000 allocs/op
BenchmarkDeProcessor-2   	       1	1000000000 ns/op	         3.000 allocs/event	      3000 ns/event	365377208 B/op	 3000000 allocs/op
PASS
ok  	github.com/flk-byo/course/lab	5.1s
pkg: github.com/flk-byo/course/solutions
BenchmarkDeProcessor-2   	       1	1000000000 ns/op	         1.207 allocs/event	      1000 ns/event	365377208 B/op	 1206672 allocs/op
PASS
`
	res, err := Parse(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if res.Lab.Runs != 2 || res.Lab.NsPerEvent != 2000 || res.Lab.AllocsPerEvt != 3 {
		t.Errorf("lab = %+v, want 2 runs, 2000 ns/event, 3 allocs/event", res.Lab)
	}
	if res.Reference.Runs != 1 || res.Reference.AllocsPerEvt != 1.207 {
		t.Errorf("reference = %+v, want 1 run, 1.207 allocs/event", res.Reference)
	}
	if got := res.Ratio(); got != 0.5 {
		t.Errorf("Ratio() = %v, want 0.5 (lab half as fast)", got)
	}
}

func TestParseMissingPackageIsAnError(t *testing.T) {
	_, err := Parse(strings.NewReader("pkg: github.com/flk-byo/course/solutions\nBenchmarkDeProcessor-2 1 5 ns/op 1 ns/event 0 allocs/event\n"))
	if err == nil || !strings.Contains(err.Error(), "course/lab") {
		t.Errorf("err = %v, want one naming the lab package", err)
	}
}
