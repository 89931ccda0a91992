package flinkcmp

import (
	"bytes"
	"strings"
	"testing"
)

// TestProgressCountsMavensLines certifies how the Flink module's build
// shows progress: on a terminal one line redrawn in place with Maven's
// line count, cleared at the end; elsewhere (CI, NO_COLOR, a file) a plain
// line every hundred lines, and nothing redrawn.
func TestProgressCountsMavensLines(t *testing.T) {
	maven := strings.Repeat("[INFO] Downloading from central: …\n", 250)
	for _, live := range []bool{true, false} {
		var out bytes.Buffer
		p := &progress{w: &out, live: live}
		p.start()
		for chunk := range strings.SplitSeq(maven, "central") { // writes that end mid-line
			p.Write([]byte(chunk))
		}
		p.end(true)
		got := out.String()
		if !strings.HasPrefix(got, "Building the Flink module: the first time, Maven downloads Flink") || !strings.HasSuffix(got, "Built the Flink module.\n") {
			t.Errorf("live=%v: progress began or ended otherwise:\n%s", live, got)
		}
		if live {
			if !strings.Contains(got, "\r  Maven: 250 lines…\r\x1b[K") {
				t.Errorf("live: no redrawn count of 250 lines, cleared:\n%q", got)
			}
			continue
		}
		if strings.Contains(got, "\r") || strings.Count(got, "  Maven: ") != 2 || !strings.Contains(got, "  Maven: 200 lines…\n") {
			t.Errorf("plain: want a line at 100 and 200 lines and no redraw:\n%q", got)
		}
	}
}
