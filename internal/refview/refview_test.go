package refview

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// src joins lines into a source file, each ending in a newline.
func src(lines ...string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// TestParseRejectsMalformedDirectives certifies that every malformed
// directive is one error naming its line, never a view that hides the wrong
// code.
func TestParseRejectsMalformedDirectives(t *testing.T) {
	tests := []struct {
		name  string
		src   []byte
		first int
		want  string
	}{
		{"unclosed", src("a", "//course:stage 03 x", "b"), 0, "line 2: the region opened here is not closed"},
		{"stray end", src("a", "//course:end"), 0, "line 2: //course:end with no region open"},
		{"nested", src("//course:stage 03 x", "a", "\t//course:stage 04 y", "b", "//course:end"), 0, "line 3: //course:stage inside the region opened at line 1"},
		{"one digit", src("//course:stage 3 x", "a", "//course:end"), 0, `line 1: //course:stage needs a two-digit stage from 01, such as 03, got "3"`},
		{"not a number", src("//course:stage 0x x", "a", "//course:end"), 0, `got "0x"`},
		{"stage zero", src("//course:stage 00 x", "a", "//course:end"), 0, `got "00"`},
		{"no stage", src("//course:stage", "a", "//course:end"), 0, `got ""`},
		{"no label", src("//course:stage 03", "a", "//course:end"), 0, "line 1: //course:stage 03 needs a label"},
		{"blank label", src("//course:stage 03   ", "a", "//course:end"), 0, "needs a label"},
		{"text after end", src("//course:stage 03 x", "a", "//course:end 03"), 0, `line 3: //course:end takes nothing after it, got "03"`},
		{"unknown word", src("//course:begin 03 x"), 0, "line 1: unknown directive //course:begin"},
		{"empty region", src("a", "//course:stage 03 x", "//course:end"), 0, "line 3: the region opened at line 2 holds no line"},
		{"the first stage's own", src("//course:stage 03 x", "a", "//course:end"), 3, "line 1: a region for stage 03 in a file that stage 03 shows first would never be left out"},
		{"an earlier stage's", src("//course:stage 02 x", "a", "//course:end"), 3, "stage 02 in a file that stage 03 shows first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse(tt.src, tt.first)
			require.Error(t, err, "a malformed file must not parse")
			assert.Nil(t, f)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestParseFindsRegions certifies that Parse returns each region with its
// stage, label and line, and that a directive's look-alikes are code.
func TestParseFindsRegions(t *testing.T) {
	f, err := Parse(src(
		"a",
		"\t//course:stage 03 correcting a fired window ",
		"b",
		"\t//course:end",
		"// //course:stage 04 in a comment's text, not a directive",
		"//course:stage 07 following upstream watermarks only",
		"c",
		"//course:end",
	), 1)
	require.NoError(t, err)
	assert.Equal(t, []Region{
		{Stage: 3, Label: "correcting a fired window", Line: 2},
		{Stage: 7, Label: "following upstream watermarks only", Line: 6},
	}, f.Regions())
}

// TestAtShowsTheFileAsOfAStage certifies that a view shows exactly the
// regions of stages up to its own, never a directive line, lists the
// regions it leaves out, and leaves no extra blank line where it cut.
func TestAtShowsTheFileAsOfAStage(t *testing.T) {
	file := src(
		"package p",
		"",
		"//course:stage 04 imports for stage 04",
		`import "slices"`,
		"",
		"//course:end",
		"",
		"type T struct {",
		"\ta int",
		"",
		"\t//course:stage 07 a field",
		"\tb bool",
		"\t//course:end",
		"",
		"\tc int",
		"}",
		"",
		"func f() int {",
		"\t//course:stage 03 first in a block",
		"\tg()",
		"\t//course:end",
		"",
		"\th()",
		"",
		"\t//course:stage 07 last in a block",
		"\ti()",
		"\t//course:end",
		"}",
		"",
		"//course:stage 04 a function at the end",
		"",
		"// s sorts.",
		"func s() { slices.Sort([]int{}) }",
		"",
		"//course:end",
	)
	f, err := Parse(file, 1)
	require.NoError(t, err)
	tests := []struct {
		stage   int
		want    []string
		omitted []int // the stages of the regions left out
	}{
		{1, []string{
			"package p",
			"",
			"type T struct {",
			"\ta int",
			"",
			"\tc int",
			"}",
			"",
			"func f() int {",
			"\th()",
			"}",
		}, []int{4, 7, 3, 7, 4}},
		{4, []string{
			"package p",
			"",
			`import "slices"`,
			"",
			"type T struct {",
			"\ta int",
			"",
			"\tc int",
			"}",
			"",
			"func f() int {",
			"\tg()",
			"",
			"\th()",
			"}",
			"",
			"// s sorts.",
			"func s() { slices.Sort([]int{}) }",
		}, []int{7, 7}},
		{8, []string{
			"package p",
			"",
			`import "slices"`,
			"",
			"type T struct {",
			"\ta int",
			"",
			"\tb bool",
			"",
			"\tc int",
			"}",
			"",
			"func f() int {",
			"\tg()",
			"",
			"\th()",
			"",
			"\ti()",
			"}",
			"",
			"// s sorts.",
			"func s() { slices.Sort([]int{}) }",
		}, nil},
	}
	for _, tt := range tests {
		v := f.At(tt.stage)
		assert.Equal(t, strings.Join(tt.want, "\n")+"\n", string(v.Source()), "the view at stage %02d", tt.stage)
		var omitted []int
		for _, r := range v.Omitted {
			omitted = append(omitted, r.Stage)
		}
		assert.Equal(t, tt.omitted, omitted, "the regions the view at stage %02d leaves out", tt.stage)
	}

	// Each line knows the region it came from.
	for _, l := range f.At(8).Lines {
		switch l.Text {
		case "\tb bool", "\ti()":
			assert.Equal(t, 7, l.Stage, "%q", l.Text)
		case "\tg()":
			assert.Equal(t, 3, l.Stage, "%q", l.Text)
		case "\ta int", "\th()", "}":
			assert.Equal(t, 0, l.Stage, "%q", l.Text)
		}
	}
}

// TestAtOfAFileWithoutRegionsIsTheFile certifies that a file without
// regions is its own view at every stage.
func TestAtOfAFileWithoutRegionsIsTheFile(t *testing.T) {
	file := src("package p", "", "func f() {}")
	f, err := Parse(file, 0)
	require.NoError(t, err)
	for _, stage := range []int{1, 8} {
		v := f.At(stage)
		assert.Equal(t, string(file), string(v.Source()))
		assert.Empty(t, v.Omitted)
	}
}

// TestAtLeavesOutTheBuildConstraint certifies that a view has no build
// constraint: it is the plain build, as a lab is, and a lab file that kept
// `//go:build !fast` would vanish from a build with the tag (de bench's).
func TestAtLeavesOutTheBuildConstraint(t *testing.T) {
	f, err := Parse(src("//go:build !fast", "", "package p", "", "func f() {}"), 1)
	require.NoError(t, err)
	assert.Equal(t, string(src("package p", "", "func f() {}")), string(f.At(1).Source()))
}

// TestExcerptShowsTheDeclarationsAStageAddsTo certifies that an excerpt
// holds each declaration (with its doc comment) or free comment that has a
// line of the stage's regions, merged where they touch, in file order, and
// nothing for a stage with no region.
func TestExcerptShowsTheDeclarationsAStageAddsTo(t *testing.T) {
	f, err := Parse(src(
		"package p",
		"",
		"// The format:",
		"//",
		"//	a int",
		"//course:stage 07 a note in a free comment",
		"//	(a −1 means upstream)",
		"//course:end",
		"",
		"// T is a thing.",
		"type T struct {",
		"\ta int",
		"\t//course:stage 07 a field",
		"\tb bool",
		"\t//course:end",
		"}",
		"",
		"// u is untouched.",
		"func u() {}",
		"",
		"//course:stage 07 two functions",
		"",
		"// f is new.",
		"func f() {}",
		"",
		"// g is new.",
		"func g() {}",
		"",
		"//course:end",
		"",
		"// h has a stage-03 line.",
		"func h() {",
		"\t//course:stage 03 x",
		"\th()",
		"\t//course:end",
		"}",
	), 1)
	require.NoError(t, err)
	parts, err := f.At(7).Excerpt(7)
	require.NoError(t, err)
	var got []string
	for _, p := range parts {
		var lines []string
		for _, l := range p {
			mark := " "
			if l.Stage == 7 {
				mark = "+"
			}
			lines = append(lines, mark+l.Text)
		}
		got = append(got, strings.Join(lines, "\n"))
	}
	assert.Equal(t, []string{
		strings.Join([]string{
			" // The format:",
			" //",
			" //	a int",
			"+//	(a −1 means upstream)",
		}, "\n"),
		strings.Join([]string{
			" // T is a thing.",
			" type T struct {",
			" \ta int",
			"+\tb bool",
			" }",
		}, "\n"),
		strings.Join([]string{
			"+// f is new.",
			"+func f() {}",
			"+",
			"+// g is new.",
			"+func g() {}",
		}, "\n"),
	}, got)

	parts, err = f.At(7).Excerpt(5)
	require.NoError(t, err)
	assert.Empty(t, parts, "stage 05 adds nothing to the file")

	_, err = View{Lines: []Line{{Text: "not go"}}}.Excerpt(7)
	assert.ErrorContains(t, err, "refview: excerpt:")
}
