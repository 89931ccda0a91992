//go:build linux

package suite

import "syscall"

// memoryFree is how much free space a memory filesystem must have for
// TempDir to use it: the suites write a few megabytes, and a container's
// /dev/shm is often only 64 MiB that other programs share.
const memoryFree = 256 << 20

// memoryDir returns /dev/shm when it is a tmpfs this process can write to
// with at least memoryFree bytes free, and "" otherwise.
func memoryDir() string {
	const dir, tmpfsMagic = "/dev/shm", 0x01021994
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil || st.Type != tmpfsMagic {
		return ""
	}
	if st.Bavail*uint64(st.Bsize) < memoryFree || syscall.Access(dir, 2 /* W_OK */) != nil {
		return ""
	}
	return dir
}
