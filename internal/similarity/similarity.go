// Package similarity measures how much of one Go program is found in
// another, in a way that renaming, reformatting, rewording comments,
// merging or splitting files and functions, and reordering declarations or
// statements do not hide: `de grade` reports how close a learner's lab is
// to the course's own solutions (which ship in every student's copy of the
// course), file by file and as a whole.
//
// A program becomes a set of fingerprints, one for each statement: a
// simple statement whole (an assignment, a call, a return), a compound one
// by its header (`if cond`, `for k, v := range xs`, `case a, b:`), a
// function by its signature, and a function literal without its body
// (whose statements count on their own). Each is hashed from its tokens,
// with the identifiers the program declares numbered in the order they
// appear in the statement (so `sum += e.Value` and `total += ev.Value` are
// alike, `a = b + a` and `a = a + b` are not), the names of imported
// packages and what they export kept as they are (`binary.BigEndian`
// cannot be renamed), and every literal alike. Statements shorter than
// MinTokens, which any two programs share (`i++`, `return nil, err`), are
// left out. A set has no order, so moving statements, functions or files
// changes nothing; what the skeletons give every solution is subtracted as
// a base.
//
// Non-goals: deciding what is a copy (a person does), and seeing through a
// patient rewrite that changes the statements themselves.
package similarity

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
)

// MinTokens is the length, in tokens, below which a statement has no
// fingerprint: calibrated on a lab written apart from the reference
// (solutions/independent), at 12 its files share at most about half of
// their statements with the reference, while a reshaped copy shares
// nearly all of them.
const MinTokens = 12

// Set is a set of fingerprints.
type Set map[uint64]struct{}

// Fingerprints returns the fingerprints of Go source src, one for each
// statement of at least MinTokens tokens. Source that does not parse is an
// error.
func Fingerprints(src []byte) (Set, error) { return FingerprintsMin(src, MinTokens) }

// FingerprintsMin is Fingerprints with statements of at least min tokens:
// for a few lines changed in a program handed out whole (a drill's fix),
// whose statements are short and all that differs.
func FingerprintsMin(src []byte, min int) (Set, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "", src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("similarity: %w", err)
	}
	toks, err := scan(fset.File(f.Package), src, imported(f))
	if err != nil {
		return nil, err
	}
	set := Set{}
	add := func(from, to token.Pos, n ast.Node) {
		if h, ok := hash(toks, from, to, bodies(n), min); ok {
			set[h] = struct{}{}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if n.Body != nil {
				add(n.Pos(), n.Body.Lbrace, nil)
			}
		case *ast.IfStmt:
			add(n.Pos(), n.Body.Lbrace, n)
		case *ast.ForStmt:
			add(n.Pos(), n.Body.Lbrace, n)
		case *ast.RangeStmt:
			add(n.Pos(), n.Body.Lbrace, n)
		case *ast.SwitchStmt:
			add(n.Pos(), n.Body.Lbrace, n)
		case *ast.TypeSwitchStmt:
			add(n.Pos(), n.Body.Lbrace, n)
		case *ast.CaseClause:
			add(n.Pos(), n.Colon, n)
		case *ast.CommClause:
			add(n.Pos(), n.Colon, n)
		case *ast.AssignStmt, *ast.ReturnStmt, *ast.ExprStmt, *ast.IncDecStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt, *ast.DeclStmt:
			add(n.Pos(), n.End(), n)
		case *ast.ValueSpec, *ast.Field:
			add(n.Pos(), n.End(), n)
		}
		return true
	})
	return set, nil
}

// tok is one token of a file: its position and what a fingerprint hashes
// of it.
type tok struct {
	pos   token.Pos
	text  string
	local bool // an identifier the program declares: hashed by its order in the statement
}

// scan returns the tokens of src (file's), with identifiers that are not
// imported packages, nor names selected from one, marked local.
func scan(file *token.File, src []byte, pkgs map[string]bool) ([]tok, error) {
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var out []tok
	for {
		pos, t, lit := s.Scan()
		switch {
		case t == token.EOF:
			if errs.Len() > 0 {
				return nil, fmt.Errorf("similarity: %w", errs.Err())
			}
			return out, nil
		case t == token.SEMICOLON && lit == "\n":
			continue // an automatic semicolon: layout, not code
		case t == token.IDENT:
			n := len(out)
			switch {
			case n >= 2 && out[n-1].text == "." && !out[n-2].local && pkgs[out[n-2].text]:
				out = append(out, tok{pos, lit, false}) // a name an imported package exports
			case pkgs[lit] && !(n >= 1 && out[n-1].text == "."):
				out = append(out, tok{pos, lit, false}) // an imported package
			default:
				out = append(out, tok{pos, lit, true})
			}
		case t.IsLiteral():
			out = append(out, tok{pos, "lit", false})
		default:
			out = append(out, tok{pos, t.String(), false})
		}
	}
}

// imported returns the names f's imports are known by.
func imported(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	return names
}

// bodies returns the blocks within n whose statements count on their own
// and so are not part of n's fingerprint: function literals' bodies.
func bodies(n ast.Node) []*ast.BlockStmt {
	if n == nil {
		return nil
	}
	var out []*ast.BlockStmt
	ast.Inspect(n, func(m ast.Node) bool {
		if fl, ok := m.(*ast.FuncLit); ok {
			out = append(out, fl.Body)
			return false
		}
		return true
	})
	return out
}

// hash hashes the tokens in [from, to) outside skip, numbering local
// identifiers in the order they first appear; ok is false when they are
// fewer than min.
func hash(toks []tok, from, to token.Pos, skip []*ast.BlockStmt, min int) (uint64, bool) {
	h := fnv.New64a()
	order := map[string]int{}
	n := 0
	first, _ := slices.BinarySearchFunc(toks, from, func(t tok, p token.Pos) int { return cmp.Compare(t.pos, p) })
next:
	for _, t := range toks[first:] {
		if t.pos >= to {
			break
		}
		for _, b := range skip {
			if t.pos >= b.Lbrace && t.pos <= b.Rbrace {
				continue next
			}
		}
		if t.local {
			i, seen := order[t.text]
			if !seen {
				i = len(order)
				order[t.text] = i
			}
			fmt.Fprintf(h, "$%d", i)
		} else {
			h.Write([]byte(t.text))
		}
		h.Write([]byte{0})
		n++
	}
	return h.Sum64(), n >= min
}

// CommentLines returns the lines of src's comments that are long enough to
// be a writer's own (at least 40 bytes), their spacing normalized: a fix
// copied with its explanation carries them.
func CommentLines(src []byte) (map[string]bool, error) {
	f, err := parser.ParseFile(token.NewFileSet(), "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("similarity: %w", err)
	}
	lines := map[string]bool{}
	for _, cg := range f.Comments {
		for line := range strings.Lines(cg.Text()) {
			if l := strings.Join(strings.Fields(line), " "); len(l) >= 40 {
				lines[l] = true
			}
		}
	}
	return lines, nil
}

// Add adds the fingerprints of o to s.
func (s Set) Add(o Set) {
	for h := range o {
		s[h] = struct{}{}
	}
}

// Minus returns the fingerprints of s that are not in base.
func (s Set) Minus(base Set) Set {
	out := Set{}
	for h := range s {
		if _, ok := base[h]; !ok {
			out[h] = struct{}{}
		}
	}
	return out
}

// Share returns the fraction of a's fingerprints that are also b's: 1 when
// everything in a is found in b, 0 when nothing is (or a is empty).
func Share(a, b Set) float64 {
	if len(a) == 0 {
		return 0
	}
	n := 0
	for h := range a {
		if _, ok := b[h]; ok {
			n++
		}
	}
	return float64(n) / float64(len(a))
}
