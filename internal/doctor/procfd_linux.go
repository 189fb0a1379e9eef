package doctor

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// procFDs: openers can tell who has a file open.
const procFDs = true

// openers lists the processes (other than this one) that have any of paths
// open, from the links in /proc/<pid>/fd: best effort, a process whose fds
// cannot be read is left out.
func openers(paths ...string) []ProcFact {
	want := map[string]bool{}
	for _, p := range paths {
		want[p] = true
		if r, err := filepath.EvalSymlinks(p); err == nil {
			want[r] = true
		}
	}
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []ProcFact
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		dir := "/proc/" + e.Name() + "/fd"
		fds, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			l, err := os.Readlink(dir + "/" + fd.Name())
			if err != nil || !want[strings.TrimSuffix(l, " (deleted)")] {
				continue
			}
			out = append(out, ProcFact{PID: pid, Name: procName(pid)})
			break
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PID < out[j].PID })
	return out
}

// procName is the process's command name (/proc/<pid>/comm).
func procName(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
