//go:build race

package suite

// RaceEnabled reports whether the test binary was built with -race.
const RaceEnabled = true
