package testutil

import "os"

// UpdateGoldenEnv names the one switch that makes tests rewrite what they
// compare with instead of comparing: UPDATE_GOLDEN=1 go test ./... (or
// one package, one -run). It covers every kind: the CLI's output goldens,
// doctor's findings, the terminal UI's frames, the testscripts' expected
// output (testscript's UpdateScripts), and the files generated from the
// fixtures (sqlitewrite's schema96.go, testdata/state-2026.9.8). An
// environment variable rather than a flag: one name works for every
// package at once, where a flag must be defined in each package a go test
// command names.
const UpdateGoldenEnv = "UPDATE_GOLDEN"

// UpdateGolden reports whether this run rewrites its goldens
// ($UPDATE_GOLDEN is 1).
func UpdateGolden() bool { return os.Getenv(UpdateGoldenEnv) == "1" }
