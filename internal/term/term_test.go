package term

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
)

func env(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }

func TestPlainOffTerminalAndUnderCIOrNoColor(t *testing.T) {
	var buf bytes.Buffer
	assert.False(t, For(&buf, env(nil)).Color, "a buffer is not a terminal")
	for _, kv := range []map[string]string{{"CI": "true"}, {"NO_COLOR": "1"}, {"TERM": "dumb"}} {
		assert.False(t, For(&buf, env(kv)).Color, "%v", kv)
	}
	assert.Equal(t, "ok", Style{}.Green("ok"), "plain style leaves text alone")
	assert.Equal(t, "\x1b[32mok\x1b[0m", Style{Color: true}.Green("ok"))
	assert.Equal(t, "", Style{Color: true}.Red(""), "empty text gets no escape codes")
}
