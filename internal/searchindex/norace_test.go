//go:build !race

package searchindex

const raceBuild = false
