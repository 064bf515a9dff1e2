// Package schema holds rlmc's published JSON contract, schema 2: JSON
// Schemas (draft 2020-12) for the result of `rlmc compile --format json`,
// the error a failed compile prints instead, one line of the `--trajectory`
// audit trail, and the reports of `rlmc validate --format json` and
// `rlmc doctor --format json`.
//
// The files live in this folder of the repository and are embedded here so
// that a Go host can validate what it reads without fetching them. Each
// file's name and $id carry the version in which its document last
// changed in a way a reader could rely on not happening: such a change
// bumps the "schema" field of the compile output and adds new files beside
// the old ones, which then stay as they are. Version 2 changed the compile
// result (a rejected list that grows with the decisions, not the catalog,
// and the unlisted counts), so compile-result.v2.json and, as it carries
// the same "schema" field, compile-error.v2.json replaced their v1 files;
// the other files did not change and keep their v1 names.
package schema

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Version is the contract version the embedded files describe; it equals
// compiler.Schema, the "schema" field of a compile's JSON.
const Version = 2

// The schema files of the current version, by name.
const (
	CompileResult  = "compile-result.v2.json" // rlmc compile --format json, compiler.Result
	CompileError   = "compile-error.v2.json"  // a failed compile in JSON mode: {"schema": 2, "error": compiler.Error}
	Trajectory     = "trajectory.v1.json"     // one line of --trajectory, compiler.AuditRecord
	ValidateReport = "validate.v1.json"       // rlmc validate --format json
	DoctorReport   = "doctor.v1.json"         // rlmc doctor --format json
	Defs           = "defs.v1.json"           // definitions the others refer to
)

// The files of schema 1 that version 2 replaced, kept as they were for
// hosts that read the output of an earlier rlmc: its result listed every
// unit of the catalog, selected or rejected.
const (
	CompileResultV1 = "compile-result.v1.json"
	CompileErrorV1  = "compile-error.v1.json"
)

// Base is the URI every file's $id starts with; a file's $id is Base
// followed by its name.
const Base = "https://raw.githubusercontent.com/rlmc-dev/rlmc/main/schema/"

//go:embed *.json
var files embed.FS

// Files returns the schema files, each under its name.
func Files() fs.FS { return files }

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// load compiles every embedded schema once, resolving their references to
// one another from the embedded copies, never over the network.
func load() (map[string]*jsonschema.Schema, error) {
	compileOnce.Do(func() {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		// date-time is only an annotation in draft 2020-12 unless asked:
		// the trajectory's time is a contract, so check it.
		c.AssertFormat()
		names, err := fs.Glob(files, "*.json")
		if err != nil {
			compileErr = err
			return
		}
		for _, n := range names {
			data, err := files.ReadFile(n)
			if err != nil {
				compileErr = err
				return
			}
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err != nil {
				compileErr = fmt.Errorf("schema %s: %w", n, err)
				return
			}
			if err := c.AddResource(Base+n, doc); err != nil {
				compileErr = fmt.Errorf("schema %s: %w", n, err)
				return
			}
		}
		out := map[string]*jsonschema.Schema{}
		for _, n := range names {
			s, err := c.Compile(Base + n)
			if err != nil {
				compileErr = fmt.Errorf("schema %s: %w", n, err)
				return
			}
			out[n] = s
		}
		compiled = out
	})
	return compiled, compileErr
}

// Validate checks one JSON document against the named schema file (one of
// the constants above) and returns an error saying where it breaks the
// contract, or nil.
func Validate(name string, data []byte) error {
	schemas, err := load()
	if err != nil {
		return err
	}
	s, ok := schemas[name]
	if !ok {
		return fmt.Errorf("schema: no schema named %q", name)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("schema %s: the document is not JSON: %w", name, err)
	}
	if err := s.Validate(doc); err != nil {
		return fmt.Errorf("schema %s: %w", name, err)
	}
	return nil
}
