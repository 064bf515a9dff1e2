//go:build !linux && !darwin

package loader

import "os"

// changeTime is the inode's change time where rlmc knows how to read it
// (ctime_linux.go, ctime_darwin.go); elsewhere it is "", and a stamp rests
// on size, modification time and identity alone.
func changeTime(os.FileInfo) string { return "" }

// appendChangeTime appends changeTime(info) to b: nothing here.
func appendChangeTime(b []byte, _ os.FileInfo) []byte { return b }
