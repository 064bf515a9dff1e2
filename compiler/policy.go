package compiler

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/safefs"
)

// Policy is the host's trusted configuration, read from --policy FILE. It is
// the only place where units become mandatory, denied or re-prioritized:
// nothing inside a SKILL.md can do any of that.
type Policy struct {
	// Roots replace the default skill roots when no --root is given.
	// Relative roots are resolved against the policy file's folder.
	Roots []string `yaml:"roots"`
	// Exclude lists skill folders (relative to their root) to leave out.
	Exclude []string `yaml:"exclude"`
	// Budget is the default token ceiling for the selected bodies.
	Budget int `yaml:"budget"`
	// Tokenizer is o200k_base (default) or cl100k_base.
	Tokenizer string `yaml:"tokenizer"`
	// Mandatory units are loaded into every compile; one that cannot be
	// honored fails the compile.
	Mandatory []string `yaml:"mandatory"`
	// Deny removes units outright.
	Deny []string `yaml:"deny"`
	// Priority overrides units' own priorities.
	Priority map[string]int `yaml:"priority"`
	// Requires adds dependency edges, for collections whose skills name each
	// other only in prose.
	Requires map[string][]string `yaml:"requires"`
	// Ambiguity says what to do when the best candidates are too close to
	// call: ask (default: select none, report them), top, or all.
	Ambiguity AmbiguityMode `yaml:"ambiguity"`
	// Limits override the loader's bounds; zero fields keep the defaults.
	Limits Limits `yaml:"limits"`
	// MinConfidence is the operating point of routing from the task: a
	// compile whose best lexical candidate's confidence (Selected.Confidence)
	// is below it selects nothing from the task. 0, the default, leaves the
	// decision to the score thresholds alone.
	MinConfidence float64 `yaml:"min_confidence"`
	// Invocation says who may select a unit: task (default), the host and
	// the task's instruction, which invokes a unit by name as the clients'
	// users do ("/name", "$name"); or host, the host alone (Request.Select,
	// Mandatory), for a host whose task text its user does not write.
	Invocation InvocationMode `yaml:"invocation"`

	// source is where the policy was read from, for diagnostics about
	// the unit names it holds.
	source policySource
}

// policySource locates a policy's unit names: the file LoadPolicy read
// ("" for ParsePolicy's bytes) and the line each name is first written
// on, under mandatory, deny, priority or requires.
type policySource struct {
	file    string
	lines   map[string]int
	exclude int // the line of the exclude list
}

// at returns where a diagnostic about the unit name the policy holds
// under key (mandatory, deny, priority, requires; "" for any) is located:
// the policy file and the line naming it there, or "policy" for a policy
// that was not read from a file.
func (p Policy) at(key, name string) (path string, line int) {
	if p.source.file == "" {
		return "policy", 0
	}
	return p.source.file, p.source.lines[key+"\x00"+name]
}

// Limits are the loader bounds a host may change.
type Limits struct {
	MaxFileBytes        int64 `yaml:"max_file_bytes"`
	MaxFrontmatterBytes int   `yaml:"max_frontmatter_bytes"`
	MaxDepth            int   `yaml:"max_depth"`
	MaxFolders          int   `yaml:"max_folders"`
}

// Defaults used when neither the policy nor the request says otherwise.
const (
	DefaultBudget    = 8000
	DefaultTokenizer = "o200k_base"
)

// AmbiguityMode says what rule 9 does with a tie.
type AmbiguityMode string

// Ambiguity modes.
const (
	AmbiguityAsk AmbiguityMode = "ask"
	AmbiguityTop AmbiguityMode = "top"
	AmbiguityAll AmbiguityMode = "all"
)

// InvocationMode says whether a task's own "/name" selects the unit.
type InvocationMode string

// Invocation modes.
const (
	InvocationTask InvocationMode = "task"
	InvocationHost InvocationMode = "host"
)

// maxPolicyBytes bounds a policy file; a real one is a few KiB.
const maxPolicyBytes = 1 << 20

// LoadPolicy reads a host policy file strictly: an unknown key is an error,
// because a typo in a deny list must not silently allow a unit. The file
// must be a regular file of at most 1 MiB: a FIFO or a device given as the
// policy is refused, never waited on or read without end.
func LoadPolicy(file string) (Policy, error) {
	data, err := safefs.ReadPath(file, maxPolicyBytes)
	if err != nil {
		return Policy{}, fmt.Errorf("policy file: %w", err)
	}
	p, err := ParsePolicy(data)
	var ke *PolicyKeyError
	if errors.As(err, &ke) {
		// path:line, as an editor or a terminal links it.
		ke.File = file
		return Policy{}, ke
	}
	var ve *PolicyValueError
	if errors.As(err, &ve) {
		ve.File = file
		return Policy{}, ve
	}
	if err != nil {
		return Policy{}, policyAt(file, err)
	}
	p.source.file = file
	base := filepath.Dir(file)
	for i, r := range p.Roots {
		if !filepath.IsAbs(r) {
			p.Roots[i] = filepath.Join(base, r)
		}
	}
	return p, nil
}

// policyAt places err, from reading the policy file, at its line when it
// has one (a key given twice, an anchor, a YAML syntax error), as key and
// value errors are placed: path:line, as an editor or a terminal links it.
func policyAt(file string, err error) error {
	var ye *loader.YAMLError
	if errors.As(err, &ye) {
		return &lineError{at: fmt.Sprintf("%s:%d", file, ye.Line), msg: "invalid policy: " + ye.Msg, err: err}
	}
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		return &lineError{at: file + ":" + m[1], msg: "invalid policy: " + m[2], err: err}
	}
	// A value the YAML library cannot decode into its field (a whole
	// number past 2^63) is reported as a list of "line N: ..." entries:
	// the first places the error.
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		if m := typeErrorRE.FindStringSubmatch(te.Errors[0]); m != nil {
			return &lineError{at: file + ":" + m[1], msg: "invalid policy: " + intRangeRE.ReplaceAllString(m[2], "a whole number out of range ($1)"), err: err}
		}
	}
	return fmt.Errorf("%s: %w", file, err)
}

// typeErrorRE matches an entry of a *yaml.TypeError, and intRangeRE the
// library's words for a whole number its field cannot hold.
var (
	typeErrorRE = regexp.MustCompile(`^line ([0-9]+): (.*)$`)
	intRangeRE  = regexp.MustCompile("cannot unmarshal !!int (`[^`]*`) into [a-z0-9]+")
)

// yamlLineRE matches yaml.v3's syntax errors, which place themselves in
// their own words ("yaml: line 2: found character that cannot start any
// token"), after ParsePolicy's prefix.
var yamlLineRE = regexp.MustCompile(`^invalid policy: yaml: line ([0-9]+): (.*)$`)

// lineError is an error placed at path:line.
type lineError struct {
	at, msg string
	err     error
}

func (e *lineError) Error() string { return e.at + ": " + e.msg }
func (e *lineError) Unwrap() error { return e.err }

// ParsePolicy parses policy YAML and validates its values.
func ParsePolicy(data []byte) (Policy, error) {
	// The shared reader refuses a second document, anchors, merge keys and
	// repeated keys, as it does for skills: a policy must mean one thing.
	doc, err := loader.DecodeYAML(data)
	if err != nil {
		return Policy{}, fmt.Errorf("invalid policy: %w", err)
	}
	if err := checkPolicyKeys(doc); err != nil {
		return Policy{}, err
	}
	var p Policy
	if err := decodePolicy(doc, &p); err != nil {
		return Policy{}, fmt.Errorf("invalid policy: %w", err)
	}
	// Each value outside its range is named with its key's line.
	// A value written as 0 is no default: "budget: 0" would leave the
	// budget at 8,000 tokens without a word.
	written := func(key ...string) bool {
		n := valueNode(doc, key...)
		return n != nil && n.Tag != "!!null"
	}
	if err, key := p.check(written); err != nil {
		err.Line = valueLine(doc, key...)
		return Policy{}, err
	}
	p.source.lines, p.source.exclude = nameLines(doc), valueLine(doc, "exclude")
	return p, nil
}

// decodePolicy decodes the policy document doc, whose keys and shapes
// checkPolicyKeys has checked, into p. The mappings keyed by unit name
// (priority, requires) may hold an entry per skill of a large catalog, and
// yaml.v3 checks a mapping's keys for repeats pairwise as it decodes it,
// in time quadratic in its length (60,000 priorities took 18 s), though
// DecodeYAML has refused repeats already: they are decoded entry by entry.
func decodePolicy(doc *yaml.Node, p *Policy) error {
	if doc == nil || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return root.Decode(p)
	}
	byName := map[string]*yaml.Node{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k, v := root.Content[i].Value, root.Content[i+1]; (k == "priority" || k == "requires") && v.Kind == yaml.MappingNode {
			byName[k] = v
		}
	}
	// Decoded without their entries, which are put back after.
	held := map[*yaml.Node][]*yaml.Node{}
	for _, v := range byName {
		held[v], v.Content = v.Content, nil
	}
	err := root.Decode(p)
	for v, content := range held {
		v.Content = content
	}
	if err != nil {
		return err
	}
	if v := byName["priority"]; v != nil {
		p.Priority = make(map[string]int, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			var n int
			if err := v.Content[i+1].Decode(&n); err != nil {
				return err
			}
			p.Priority[v.Content[i].Value] = n
		}
	}
	if v := byName["requires"]; v != nil {
		p.Requires = make(map[string][]string, len(v.Content)/2)
		for i := 0; i+1 < len(v.Content); i += 2 {
			var deps []string
			if err := v.Content[i+1].Decode(&deps); err != nil {
				return err
			}
			p.Requires[v.Content[i].Value] = deps
		}
	}
	return nil
}

// Validate checks the ranges ParsePolicy checks, for a Policy built in
// Go: Load, LoadWith, New and Watch refuse one that fails them, as they
// would the same values read from a file (a budget of -5 made every
// compile answer no_route, an ambiguity of "bogus" passed for ask). Zero
// fields are defaults.
func (p Policy) Validate() error {
	if err, _ := p.check(func(...string) bool { return false }); err != nil {
		return err
	}
	return nil
}

// check returns the first value of p outside its range, with Line 0, and
// its key's path (limits, max_depth); written says whether a key holds a
// value, so that one written as 0 is refused rather than read as the
// default.
func (p Policy) check(written func(key ...string) bool) (*PolicyValueError, []string) {
	bad := func(want, got string, key ...string) (*PolicyValueError, []string) {
		return &PolicyValueError{Key: strings.Join(key, "."), Want: want, Got: got}, key
	}
	if p.Budget < 0 || (p.Budget == 0 && written("budget")) {
		return bad("positive", strconv.Itoa(p.Budget), "budget")
	}
	for _, r := range p.Roots {
		if r == "" {
			// It would name the policy file's own folder.
			return bad("folder paths", `""`, "roots")
		}
	}
	for _, l := range []struct {
		key   string
		names []string
	}{{"mandatory", p.Mandatory}, {"deny", p.Deny}} {
		if slices.Contains(l.names, "") {
			// A unit name left empty names no unit: a deny that denies
			// nothing.
			return bad("unit names", `""`, l.key)
		}
	}
	// Nor does one in requires or priority: a dependency on "" was taken
	// for a dependency met (the closure's "no missing unit"), and the
	// compile that selected its dependent crashed.
	if _, ok := p.Priority[""]; ok {
		return bad("unit names", `""`, "priority")
	}
	for _, name := range slices.Sorted(maps.Keys(p.Requires)) {
		if name == "" || slices.Contains(p.Requires[name], "") {
			return bad("unit names", `""`, "requires")
		}
	}
	for _, e := range p.Exclude {
		if strings.TrimSpace(e) == "" {
			// It would name no folder, or each root itself.
			return bad("skill folder paths", strconv.Quote(e), "exclude")
		}
	}
	if p.Tokenizer != "" {
		if _, err := codecFor(p.Tokenizer); err != nil {
			return bad(strings.Join(Tokenizers, " or "), strconv.Quote(p.Tokenizer), "tokenizer")
		}
	}
	switch p.Ambiguity {
	case "", AmbiguityAsk, AmbiguityTop, AmbiguityAll:
	default:
		return bad("ask, top or all", strconv.Quote(string(p.Ambiguity)), "ambiguity")
	}
	switch p.Invocation {
	case "", InvocationTask, InvocationHost:
	default:
		return bad("task or host", strconv.Quote(string(p.Invocation)), "invocation")
	}
	if !(p.MinConfidence >= 0 && p.MinConfidence <= 1) { // NaN too
		return bad("between 0 and 1", strconv.FormatFloat(p.MinConfidence, 'g', -1, 64), "min_confidence")
	}
	for _, l := range []struct {
		key string
		v   int64
	}{
		{"max_file_bytes", p.Limits.MaxFileBytes}, {"max_frontmatter_bytes", int64(p.Limits.MaxFrontmatterBytes)},
		{"max_depth", int64(p.Limits.MaxDepth)}, {"max_folders", int64(p.Limits.MaxFolders)},
	} {
		if l.v < 0 || (l.v == 0 && written("limits", l.key)) {
			return bad("positive", strconv.FormatInt(l.v, 10), "limits", l.key)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(p.Priority)) {
		if prio := p.Priority[name]; prio < 0 || prio > 100000 {
			return bad("0..100000", strconv.Itoa(prio), "priority", name)
		}
	}
	return nil, nil
}

// nameLines returns the line each unit name of the policy doc is first
// written on, under each key ("requires\x00tdd") and under any (the key
// ""): the entries of mandatory and deny, the keys of priority, and the
// keys and entries of requires.
func nameLines(doc *yaml.Node) map[string]int {
	lines := map[string]int{}
	note := func(key string, n *yaml.Node) {
		if n.Kind != yaml.ScalarNode {
			return
		}
		for _, k := range []string{key + "\x00" + n.Value, "\x00" + n.Value} {
			if l, ok := lines[k]; !ok || n.Line < l {
				lines[k] = n.Line
			}
		}
	}
	for _, key := range []string{"mandatory", "deny", "priority", "requires"} {
		n := valueNode(doc, key)
		if n == nil {
			continue
		}
		switch n.Kind {
		case yaml.SequenceNode:
			for _, e := range n.Content {
				note(key, e)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				note(key, n.Content[i])
				for _, e := range n.Content[i+1].Content {
					note(key, e)
				}
			}
		}
	}
	return lines
}

// names returns every unit name the policy mentions, sorted, for checks.
func (p Policy) names() []string {
	set := map[string]bool{}
	for _, n := range p.Mandatory {
		set[n] = true
	}
	for _, n := range p.Deny {
		set[n] = true
	}
	for n := range p.Priority {
		set[n] = true
	}
	for n, deps := range p.Requires {
		set[n] = true
		for _, d := range deps {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
