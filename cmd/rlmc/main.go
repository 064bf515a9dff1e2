// Command rlmc compiles Agent Skills into a planner prompt with an embedded,
// sandboxed Prolog policy. Run `rlmc help` for the commands.
package main

import "os"

func main() {
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
