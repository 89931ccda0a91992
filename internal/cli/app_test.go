package cli

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHoistFlags(t *testing.T) {
	app := newApp(IO{})
	for _, tc := range []struct{ in, want []string }{
		{[]string{"de", "start", "FLK-BYO/02", "--force"}, []string{"de", "start", "--force", "FLK-BYO/02"}},
		{[]string{"de", "start", "--force", "02"}, []string{"de", "start", "--force", "02"}},
		{[]string{"de", "test", "--stage", "2", "--solution"}, []string{"de", "test", "--stage", "2", "--solution"}},
		{[]string{"de", "test", "x", "--timeout", "5s"}, []string{"de", "test", "--timeout", "5s", "x"}},
		{[]string{"de", "start", "02", "--", "--force"}, []string{"de", "start", "02", "--", "--force"}},
		{[]string{"de", "frobnicate", "-x"}, []string{"de", "frobnicate", "-x"}},
		{[]string{"de", "drill", "reset", "quiet-partition", "--yes"}, []string{"de", "drill", "reset", "--yes", "quiet-partition"}},
		{[]string{"de", "drill", "test", "--timeout", "5s", "q"}, []string{"de", "drill", "test", "--timeout", "5s", "q"}},
		{[]string{"de", "drill", "test", "q", "--timeout", "5s"}, []string{"de", "drill", "test", "--timeout", "5s", "q"}},
		{[]string{"de"}, []string{"de"}},
	} {
		assert.Equal(t, tc.want, hoistFlags(app, tc.in), "%q", tc.in)
	}
}

func TestHelpListsExamples(t *testing.T) {
	var out bytes.Buffer
	code := Main(context.Background(), []string{"de", "--help"}, IO{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }, Dir: "."})
	assert.Equal(t, 0, code)
	for _, want := range []string{"de start FLK-BYO/01", "de test --solution", "de hint", "start", "test", "list", "status", "check"} {
		assert.Contains(t, out.String(), want)
	}
}
