// Package similarity measures how much of one Go file is found in another,
// in a way that renaming, reformatting and rewording comments do not hide:
// `de grade` reports, for each file of a learner's lab, how close it is to
// the reference, so that an instructor sees a copy (the reference ships in
// every student's copy of the course).
//
// A file becomes a sequence of normalized tokens (go/scanner; every
// identifier the same token, every literal the same token, comments
// dropped), its k-grams are hashed, and a winnowing window keeps the
// minimum hash of each run of consecutive hashes: the fingerprints (Schleimer,
// Wilkerson and Aiken, "Winnowing: local algorithms for document
// fingerprinting", SIGMOD 2003; the method behind MOSS). Any shared run of
// at least K+W−1 tokens shares a fingerprint. Code every solution shares,
// such as the skeleton's signatures, is subtracted as a base.
//
// Non-goals: deciding what is a copy (a person does), and seeing through
// code that was restructured rather than renamed.
package similarity

import (
	"fmt"
	"go/scanner"
	"go/token"
	"hash/fnv"
)

// K is the length, in tokens, of the runs that are hashed; W is the
// winnowing window. A shared run of K+W−1 tokens or more is always seen;
// one shorter than K never is.
const (
	K = 12
	W = 8
)

// Set is a set of fingerprints.
type Set map[uint64]struct{}

// Fingerprints returns the fingerprints of Go source src. Source that does
// not scan is an error.
func Fingerprints(src []byte) (Set, error) {
	toks, err := tokens(src)
	if err != nil {
		return nil, err
	}
	hashes := make([]uint64, 0, max(0, len(toks)-K+1))
	for i := 0; i+K <= len(toks); i++ {
		h := fnv.New64a()
		for _, t := range toks[i : i+K] {
			h.Write([]byte(t))
			h.Write([]byte{0})
		}
		hashes = append(hashes, h.Sum64())
	}
	set := Set{}
	for i := 0; i < max(1, len(hashes)-W+1) && i < len(hashes); i++ {
		low := hashes[i]
		for _, h := range hashes[i:min(i+W, len(hashes))] {
			low = min(low, h)
		}
		set[low] = struct{}{}
	}
	return set, nil
}

// tokens returns src's tokens, normalized: identifiers and literals by
// their kind alone, everything else as itself; comments are dropped and
// every statement end is one token.
func tokens(src []byte) ([]string, error) {
	fset := token.NewFileSet()
	file := fset.AddFile("", fset.Base(), len(src))
	var errs scanner.ErrorList
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { errs.Add(pos, msg) }, 0)
	var out []string
	for {
		_, tok, _ := s.Scan()
		switch {
		case tok == token.EOF:
			if errs.Len() > 0 {
				return nil, fmt.Errorf("similarity: %w", errs.Err())
			}
			return out, nil
		case tok == token.IDENT:
			out = append(out, "id")
		case tok.IsLiteral():
			out = append(out, "lit")
		default:
			out = append(out, tok.String())
		}
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
