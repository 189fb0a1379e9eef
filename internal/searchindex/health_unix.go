//go:build unix

package searchindex

import "golang.org/x/sys/unix"

// writable: this user may create and remove files in dir.
func writable(dir string) error {
	return unix.Access(dir, unix.W_OK|unix.X_OK)
}

// freeSpace is what an unprivileged writer may still write on dir's file
// system.
func freeSpace(dir string) (int64, bool) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
