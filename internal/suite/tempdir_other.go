//go:build !linux

package suite

// memoryDir returns "": outside Linux there is no memory filesystem every
// machine has, so TempDir uses t.TempDir.
func memoryDir() string { return "" }
