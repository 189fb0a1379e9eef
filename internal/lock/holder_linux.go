package lock

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// FlockHolder returns the pid holding an flock on path, from /proc/locks
// (0 when unknown: not locked, not Linux, or the holder is in another PID
// namespace). Best effort, for messages and operators.
func FlockHolder(path string) int {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0
	}
	dev := uint64(st.Dev)
	major := (dev>>8)&0xfff | (dev>>32)&^uint64(0xfff)
	minor := dev&0xff | (dev>>12)&^uint64(0xff)
	f, err := os.Open("/proc/locks")
	if err != nil {
		return 0
	}
	defer f.Close()
	byIno := 0 // a match on the inode alone (overlay/btrfs report another dev)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// "1: FLOCK  ADVISORY  WRITE 4935 fe:00:9978563 0 EOF"; waiters have "->".
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] != "FLOCK" {
			continue
		}
		pid, err := strconv.Atoi(fields[4])
		if err != nil || pid <= 0 {
			continue
		}
		id := strings.Split(fields[5], ":")
		if len(id) != 3 {
			continue
		}
		ino, err := strconv.ParseUint(id[2], 10, 64)
		if err != nil || ino != uint64(st.Ino) {
			continue
		}
		ma, err1 := strconv.ParseUint(id[0], 16, 64)
		mi, err2 := strconv.ParseUint(id[1], 16, 64)
		if err1 == nil && err2 == nil && ma == major && mi == minor {
			return pid
		}
		if byIno == 0 {
			byIno = pid
		} else if byIno != pid {
			byIno = -1
		}
	}
	if byIno > 0 {
		return byIno
	}
	return 0
}
