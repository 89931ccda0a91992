// Package refview shows a file of the reference solution as of a stage: the
// code that a learner who has just passed stage N reads with
// `de solution NN`, without what later stages added to the same file.
//
// The reference (package solutions) is cumulative: once every stage is done,
// stage 01's windows.go also holds stage 03's correction of a fired window
// and stage 07's processor that follows upstream watermarks. Code that a
// later stage adds to an earlier stage's file, and that is not a whole
// function of the later stage's own file, is marked as a region:
//
//	//course:stage 07 following upstream watermarks only
//	if p.upstreamOnly {
//		return nil
//	}
//	//course:end
//
// The first line opens a region of code that stage 07 adds, with a label
// that says in a few words what the code is for; the second closes it. Each
// directive is a line of its own (indentation aside), the stage is two
// digits, the label is not empty, and regions do not nest. The view of a
// file at stage N shows the regions of stages up to N, leaves out the
// others, and never shows a directive line; where that leaves two blank
// lines in a row, or a blank line just inside a brace or parenthesis, the
// extra blank line goes too, so that a view of a gofmt-formatted file is
// formatted.
//
// A region's opening directive must not be the first line of a top-level
// declaration's doc comment: gofmt moves a directive there to the end of
// the comment. Put a blank line between the directive and the comment, as
// after the closing directive of a top-level declaration.
//
// Non-goals: understanding Go (the directives are lines, found by their
// text, so one in a raw string would count too; only Excerpt parses a
// view), and deciding which files a stage shows: the catalogue lists them
// (stages/catalog.json).
package refview

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// The directives' text, after the line's indentation.
const (
	directivePrefix = "//course:"
	openDirective   = directivePrefix + "stage"
	closeDirective  = directivePrefix + "end"
)

// Region is code that a later stage adds to a file an earlier stage shows.
type Region struct {
	Stage int    // the stage that adds it
	Label string // what it is for, in a few words
	Line  int    // the line of its opening directive, from 1
}

// File is a reference file with its regions.
type File struct {
	lines   []string // the source's lines, without their newlines
	in      []int    // for each line, the index of its region in regions; -1 outside any
	isDir   []bool   // for each line, whether it is a directive
	regions []Region
}

// Parse reads the regions of a reference file. first is the first stage
// that shows the file (0 if unknown): a region for a stage at or before it
// would never be left out, and is an error. So is a malformed directive, a
// region that is never closed or holds no line, and a closing directive
// with no region open; the error names the line.
func Parse(src []byte, first int) (*File, error) {
	text := strings.TrimSuffix(string(src), "\n")
	f := &File{lines: strings.Split(text, "\n")}
	if text == "" {
		f.lines = nil
	}
	f.in = make([]int, len(f.lines))
	f.isDir = make([]bool, len(f.lines))
	open := -1 // the index of the open region in f.regions
	for i, l := range f.lines {
		n := i + 1
		f.in[i] = open
		d, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), directivePrefix)
		if !ok {
			continue
		}
		f.isDir[i] = true
		f.in[i] = -1
		switch word, rest, _ := strings.Cut(d, " "); word {
		case "stage":
			if open >= 0 {
				return nil, fmt.Errorf("line %d: %s inside the region opened at line %d: regions do not nest (close it with %s first)", n, openDirective, f.regions[open].Line, closeDirective)
			}
			r, err := parseOpen(rest, n)
			if err != nil {
				return nil, err
			}
			if r.Stage <= first {
				return nil, fmt.Errorf("line %d: a region for stage %02d in a file that stage %02d shows first would never be left out: only a later stage's code is a region", n, r.Stage, first)
			}
			f.regions = append(f.regions, r)
			open = len(f.regions) - 1
		case "end":
			if strings.TrimSpace(rest) != "" {
				return nil, fmt.Errorf("line %d: %s takes nothing after it, got %q", n, closeDirective, strings.TrimSpace(rest))
			}
			if open < 0 {
				return nil, fmt.Errorf("line %d: %s with no region open", n, closeDirective)
			}
			if f.regions[open].Line == n-1 {
				return nil, fmt.Errorf("line %d: the region opened at line %d holds no line", n, n-1)
			}
			open = -1
		default:
			return nil, fmt.Errorf("line %d: unknown directive %s%s: the directives are %s NN <label> and %s", n, directivePrefix, word, openDirective, closeDirective)
		}
	}
	if open >= 0 {
		return nil, fmt.Errorf("line %d: the region opened here is not closed (%s)", f.regions[open].Line, closeDirective)
	}
	return f, nil
}

// parseOpen reads what follows //course:stage on line n: a two-digit stage
// and a label.
func parseOpen(rest string, n int) (Region, error) {
	num, label, _ := strings.Cut(strings.TrimSpace(rest), " ")
	stage, err := strconv.Atoi(num)
	if len(num) != 2 || err != nil || stage < 1 {
		return Region{}, fmt.Errorf("line %d: %s needs a two-digit stage from 01, such as 03, got %q", n, openDirective, num)
	}
	label = strings.TrimSpace(label)
	if label == "" {
		return Region{}, fmt.Errorf("line %d: %s %s needs a label: what the code is for, in a few words", n, openDirective, num)
	}
	return Region{Stage: stage, Label: label, Line: n}, nil
}

// Regions returns the file's regions, in file order.
func (f *File) Regions() []Region { return slices.Clone(f.regions) }

// View is a file as of a stage.
type View struct {
	Lines   []Line   // the lines shown
	Omitted []Region // the regions of later stages, left out, in file order
}

// Line is one line of a view.
type Line struct {
	Text  string // without its newline
	Stage int    // the stage of the region it is in; 0 outside regions
}

// At returns the view of f at stage: every line outside regions, the
// regions of stages up to stage, no directive line, and no build
// constraint (`//go:build !fast` on the first line of a plain twin).
func (f *File) At(stage int) View {
	var v View
	seam := false // a line was left out just before this one
	for i, text := range f.lines {
		r := f.in[i]
		switch {
		case f.isDir[i], i == 0 && strings.HasPrefix(text, "//go:build "):
			// A build constraint says which of the reference's builds the
			// file is in; a view is the plain build, as a lab is, whose
			// files have none.
			seam = true
			continue
		case r >= 0 && f.regions[r].Stage > stage:
			if len(v.Omitted) == 0 || v.Omitted[len(v.Omitted)-1] != f.regions[r] {
				v.Omitted = append(v.Omitted, f.regions[r])
			}
			seam = true
			continue
		}
		l := Line{Text: text}
		if r >= 0 {
			l.Stage = f.regions[r].Stage
		}
		if seam {
			seam = false
			if l.blank() && v.afterBlankOrOpen() {
				continue // one blank line is enough
			}
			if closes(text) && len(v.Lines) > 0 && v.Lines[len(v.Lines)-1].blank() {
				v.Lines = v.Lines[:len(v.Lines)-1] // no blank line before a closing brace
			}
		}
		v.Lines = append(v.Lines, l)
	}
	if seam && len(v.Lines) > 0 && v.Lines[len(v.Lines)-1].blank() {
		v.Lines = v.Lines[:len(v.Lines)-1] // no blank line at the end
	}
	return v
}

// blank reports whether l is an empty line.
func (l Line) blank() bool { return strings.TrimSpace(l.Text) == "" }

// afterBlankOrOpen reports whether the view so far ends where a blank line
// would be one too many: at its start, after a blank line, or after a line
// that opens a brace or parenthesis.
func (v *View) afterBlankOrOpen() bool {
	if len(v.Lines) == 0 {
		return true
	}
	last := v.Lines[len(v.Lines)-1]
	t := strings.TrimSpace(last.Text)
	return t == "" || strings.HasSuffix(t, "{") || strings.HasSuffix(t, "(")
}

// closes reports whether a line closes a brace or parenthesis.
func closes(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "}") || strings.HasPrefix(t, ")")
}

// Source returns the view as source text, each line ending in a newline.
func (v View) Source() []byte {
	var b bytes.Buffer
	for _, l := range v.Lines {
		b.WriteString(l.Text)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Excerpt returns the parts of v that show what stage added to the file, in
// file order: each top-level declaration, with its doc comment, that holds a
// line of one of stage's regions; a region in a comment outside any
// declaration comes with that comment, and one elsewhere alone; blank lines
// at either end of a part are left out. It is for a
// file an earlier stage shows whole: the rest of it is unchanged. v must be
// Go source (a view of a reference file is); an excerpt of a stage with no
// region in v is empty.
func (v View) Excerpt(stage int) ([][]Line, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", v.Source(), parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("refview: excerpt: %w", err)
	}
	line := func(p token.Pos) int { return fset.Position(p).Line - 1 } // index into v.Lines
	// The spans a region's lines may belong to, from first to last line.
	type span struct{ from, to int }
	var units []span
	for _, d := range file.Decls {
		from := line(d.Pos())
		if doc := docOf(d); doc != nil {
			from = line(doc.Pos())
		}
		units = append(units, span{from, line(d.End())})
	}
	for _, c := range file.Comments {
		units = append(units, span{line(c.Pos()), line(c.End())})
	}
	var parts []span
	for i, l := range v.Lines {
		if l.Stage != stage {
			continue
		}
		s := span{i, i}
		for _, u := range units {
			if u.from <= i && i <= u.to {
				s = u
				break // a declaration comes before the comments inside it
			}
		}
		if n := len(parts); n > 0 && s.from <= parts[n-1].to+1 {
			parts[n-1].to = max(parts[n-1].to, s.to)
			continue
		}
		parts = append(parts, s)
	}
	var out [][]Line
	for _, p := range parts {
		for p.from <= p.to && v.Lines[p.from].blank() {
			p.from++
		}
		for p.to >= p.from && v.Lines[p.to].blank() {
			p.to--
		}
		if p.from <= p.to {
			out = append(out, v.Lines[p.from:p.to+1])
		}
	}
	return out, nil
}

// docOf returns the doc comment of a top-level declaration, or nil.
func docOf(d ast.Decl) *ast.CommentGroup {
	switch d := d.(type) {
	case *ast.FuncDecl:
		return d.Doc
	case *ast.GenDecl:
		return d.Doc
	}
	return nil
}
