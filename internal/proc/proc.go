// Package proc is what sessions needs from the operating system about other
// processes, one implementation per platform: whether a pid names a live
// process, how to start a process detached from its caller, and how to start
// and end a command together with what it starts.
//
// Unix (Linux, macOS, the BSDs) uses kill(pid, 0), setsid and process
// groups; Windows uses OpenProcess + GetExitCodeProcess and process creation
// flags (see docs/PLATFORMS.md for what differs).
package proc

// backgroundNice is the nice value of a process doing background work
// (Background): below every interactive process, above idle ones.
const backgroundNice = 10
