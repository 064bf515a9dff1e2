package schema_test

import (
	"fmt"

	"github.com/rlmc-dev/rlmc/schema"
)

// A host reading `rlmc compile --format json` checks the output against the
// contract before it trusts any field of it.
func ExampleValidate() {
	out := []byte(`{"schema": 2, "error": {"stage": "analyze", "code": "unknown_unit", "unit": "nope", "message": "selected unit \"nope\" is not in the catalog"}}`)
	fmt.Println(schema.Validate(schema.CompileError, out) == nil)
	out = []byte(`{"schema": 2, "error": {"stage": "analyze", "code": "no_such_code", "message": "m"}}`)
	fmt.Println(schema.Validate(schema.CompileError, out) == nil)
	// Output:
	// true
	// false
}
