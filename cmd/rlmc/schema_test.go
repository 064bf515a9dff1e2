package main

import (
	"bytes"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rlmc-dev/rlmc/schema"
)

// schemaCmd is the testscript command `schema NAME FILE`: FILE (stdout
// for the last command's output) must validate against the published
// schema file NAME; a trajectory file is checked line by line. Scripts use
// it after each JSON output the contract covers, so the CLI's real outputs
// are checked against the schemas, not only the compiler's.
func schemaCmd(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: schema NAME FILE")
	}
	if neg {
		ts.Fatalf("unsupported: ! schema")
	}
	data := []byte(ts.ReadFile(args[1]))
	if len(bytes.TrimSpace(data)) == 0 {
		ts.Fatalf("%s is empty; want a %s document", args[1], args[0])
	}
	docs := [][]byte{data}
	if args[0] == schema.Trajectory {
		docs = bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	}
	for i, doc := range docs {
		if err := schema.Validate(args[0], doc); err != nil {
			ts.Fatalf("%s line %d: %v", args[1], i+1, err)
		}
	}
}
