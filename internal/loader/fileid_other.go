//go:build !unix

package loader

import "os"

// FileID identifies the file behind info beyond its name, size and time
// where the system says how; here it does not, and it returns "".
func FileID(os.FileInfo) string { return "" }

// appendFileID appends FileID(info) to b: nothing here.
func appendFileID(b []byte, _ os.FileInfo) []byte { return b }

// othersFolder returns who besides this process's user could have put
// skills in a folder: the system does not say here, and it returns "".
func othersFolder(os.FileInfo) string { return "" }
