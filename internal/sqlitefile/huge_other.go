//go:build !linux

package sqlitefile

func adviseHuge([]byte) {}
