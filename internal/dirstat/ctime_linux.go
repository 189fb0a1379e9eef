package dirstat

import "golang.org/x/sys/unix"

// ctimeOf is st's change time (ns), as fsutil.StampOf gives it here.
func ctimeOf(st *unix.Stat_t) int64 {
	return int64(st.Ctim.Sec)*1e9 + int64(st.Ctim.Nsec) //nolint:unconvert // int32 on 32-bit platforms
}
