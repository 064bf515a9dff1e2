// Package suite runs behaviour cases against the compiler: the project's
// adversarial corpus, and any user's own guarantees through `rlmc test`.
//
// A case is a txtar file. Its comment's first line says what the case
// attacks or pins. Its files are:
//
//	request.json   one request object, or an array of them:
//	               {"task": "...", "select": [...], "deny": [...],
//	                "budget": N, "tokenizer": "...", "why": [...],
//	                "all_rejected": true}
//	want.json      the expectation (see Want), one object for every
//	               request, or an array with one per request
//	skills/...     optional: the catalog; without it the case runs against
//	               the roots given to the runner
//	skills-b/...   optional: a second catalog; every request also compiles
//	               against it, and Want.Fingerprints and
//	               Want.CatalogFingerprints compare the two
//	policy.yaml    optional: host policy for this case
//	symlinks       optional: lines "link -> target", both relative to the
//	               case folder, created before loading; the link must lie
//	               inside the case folder (the target may point anywhere)
//	               and may not be named as a section read from the case
//	               file (request.json, want.json, policy.yaml, symlinks)
//
// Besides its expectation, every case is checked for the invariants that
// must hold for any input: each unit is accounted for once, in selected,
// rejected or the unlisted counts, and the result lists what the contract
// says it lists (see Invariants), the prompt has one block per selected unit, two compiles give
// identical JSON, a relocated copy created in another order with other
// modification times compiles to the same fingerprints, and no unit was
// read from outside its root.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/rlmc-dev/rlmc/compiler"
	"github.com/rlmc-dev/rlmc/internal/loader"
	"github.com/rlmc-dev/rlmc/internal/reqjson"
	"github.com/rlmc-dev/rlmc/internal/safefs"
	"github.com/rlmc-dev/rlmc/internal/strictjson"
	"github.com/rlmc-dev/rlmc/internal/suggest"
	"github.com/rlmc-dev/rlmc/ir"
)

// Case is one parsed case file.
type Case struct {
	Name     string // file name without .txtar
	Note     string // what it attacks or pins
	File     string
	Requests []Request
	Wants    []Want // one per request
	// Err says why the file is not a valid case; running such a case
	// fails it with Err, so one malformed file never stops the others.
	Err     error
	archive *txtar.Archive
}

// Request is one compile of a case: `rlmc serve`'s request body
// (reqjson.Request).
type Request = reqjson.Request

// Want is what a compile must produce. Every field is optional; only the
// fields given are checked.
type Want struct {
	// Error is the compile error code the request must fail with.
	Error string `json:"error,omitempty"`
	// Decision is route, no_route or ambiguous.
	Decision string `json:"decision,omitempty"`
	// Selected is the exact list of selected names, in prompt order.
	Selected *[]string `json:"selected,omitempty"`
	// Includes must be selected; Excludes must never be.
	Includes []string `json:"includes,omitempty"`
	Excludes []string `json:"excludes,omitempty"`
	// Rejected maps a unit name to the code of its first rejection reason.
	Rejected map[string]string `json:"rejected,omitempty"`
	// Diagnostics are codes that must appear among the diagnostics.
	Diagnostics []string `json:"diagnostics,omitempty"`
	// PromptContains and PromptExcludes are substrings of the prompt.
	PromptContains []string `json:"prompt_contains,omitempty"`
	PromptExcludes []string `json:"prompt_excludes,omitempty"`
	// Fingerprints is "equal" or "differ": across the requests of the case,
	// or between the skills/ and skills-b/ catalogs when both exist.
	Fingerprints string `json:"fingerprints,omitempty"`
	// CatalogFingerprints is "equal" or "differ" between the catalog
	// fingerprints of skills/ and skills-b/.
	CatalogFingerprints string `json:"catalog_fingerprints,omitempty"`
	// Match is a JSON subset of the full result: objects match by key,
	// arrays as an ordered subsequence.
	Match json.RawMessage `json:"match,omitempty"`
}

// causedError is an error said in the user's terms that wraps its cause.
type causedError struct {
	msg string
	err error
}

func (e *causedError) Error() string { return e.msg }
func (e *causedError) Unwrap() error { return e.err }

// MaxCaseBytes bounds a case file: a gigabyte named like a case took
// seconds and gigabytes to read, and is no case anyone wrote.
const MaxCaseBytes = 64 << 20

// Load reads every *.txtar case below dir, sorted by name. A file that is
// not a valid case is returned as a Case with Err set, not as an error:
// the error result is for a folder without case files.
func Load(dir string) ([]*Case, error) {
	if info, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		// Said as a missing root is, not as the stat that found it.
		return nil, &causedError{msg: "case folder " + ir.Printable(dir) + " does not exist", err: err}
	} else if err != nil {
		return nil, err
	} else if !info.IsDir() {
		if name, ok := strings.CutSuffix(filepath.Base(dir), ".txtar"); ok && !strings.Contains(name, "'") {
			return nil, fmt.Errorf("%s is not a folder of case files; to run this case alone, name its folder and --run '^%s$'", dir, regexp.QuoteMeta(name))
		}
		return nil, fmt.Errorf("%s is not a folder of case files", dir)
	}
	// Listed, not globbed: a folder named "cases[1]" is a pattern to
	// filepath.Glob, which ran another folder's cases.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".txtar") {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.txtar case files in %s", dir)
	}
	sort.Strings(files)
	var cases []*Case
	for _, f := range files {
		c, err := Parse(f)
		if err != nil {
			// Its description, when the file was read, still says
			// which case failed.
			note := ""
			if c != nil {
				note = c.Note
			}
			c = &Case{Name: strings.TrimSuffix(filepath.Base(f), ".txtar"), File: f, Note: note, Err: err, archive: &txtar.Archive{}}
		}
		cases = append(cases, c)
	}
	return cases, nil
}

// Parse reads one case file. A case it cannot read whole comes back with
// what it read (its name and description) beside the error.
func Parse(file string) (*Case, error) {
	// A case folder is not trusted to hold only regular files: a FIFO
	// named like a case must be an error, not a hang.
	data, err := safefs.ReadPath(file, MaxCaseBytes)
	if err != nil {
		return nil, err
	}
	ar := txtar.Parse(data)
	c := &Case{Name: strings.TrimSuffix(filepath.Base(file), ".txtar"), File: file, archive: ar}
	c.Note, _, _ = strings.Cut(strings.TrimSpace(string(ar.Comment)), "\n")
	var reqData, wantData []byte
	seen := map[string]bool{}
	for _, f := range ar.Files {
		// A second section of a name would silently win over the first:
		// a case pinning one thing and checking another.
		if seen[f.Name] {
			return c, fmt.Errorf("%s: %s is given more than once", file, f.Name)
		}
		if err := checkSectionName(f.Name); err != nil {
			return c, fmt.Errorf("%s: %w", file, err)
		}
		seen[f.Name] = true
		switch f.Name {
		case "request.json":
			reqData = f.Data
		case "want.json":
			wantData = f.Data
		}
	}
	if reqData == nil || wantData == nil {
		return c, fmt.Errorf("%s: a case needs request.json and want.json", file)
	}
	at := sectionLines(data)
	if c.Requests, _, err = oneOrMany[Request](atLine(reqData, at["request.json"])); err != nil {
		return c, fmt.Errorf("%s: request.json: %w", file, err)
	}
	for i, r := range c.Requests {
		// As rlmc serve answers them: a request without its task is no
		// request for an empty one.
		if err := r.Check(); err != nil {
			return c, fmt.Errorf("%s: request.json: %s%w", file, entry(i, len(c.Requests)), err)
		}
	}
	var wantRaws []json.RawMessage
	if c.Wants, wantRaws, err = oneOrMany[Want](atLine(wantData, at["want.json"])); err != nil {
		return c, fmt.Errorf("%s: want.json: %w", file, err)
	}
	for i, raw := range wantRaws {
		// A null reads as the key left out: "selected": null passed a
		// case whatever was selected.
		if k := nullKey(raw); k != "" {
			return c, fmt.Errorf("%s: want.json: %s%s is null, which checks nothing; give a value ([] for none) or leave the key out", file, entry(i, len(wantRaws)), k)
		}
	}
	switch {
	case len(c.Wants) == 1:
		for len(c.Wants) < len(c.Requests) {
			c.Wants = append(c.Wants, c.Wants[0])
		}
	case len(c.Wants) != len(c.Requests):
		return c, fmt.Errorf("%s: want.json has %d entries for %d requests", file, len(c.Wants), len(c.Requests))
	}
	if err := c.checkComparisons(); err != nil {
		return c, fmt.Errorf("%s: %w", file, err)
	}
	return c, nil
}

// sections are the names a case's sections (or, for a catalog, the first
// element of their paths) have a meaning under.
var sections = []string{"request.json", "want.json", "policy.yaml", "symlinks", "skills", "skills-b"}

// checkSectionName refuses a section whose name (or the first element of
// its path) is close to one of sections without being it: any other file
// is only written into the case folder, so "polcy.yaml" or
// "skils/x/SKILL.md" would pass a case that never applied its policy or
// loaded its catalog.
func checkSectionName(name string) error {
	// ./policy.yaml or skills/../policy.yaml names the file a section of
	// another name is read from, and is read as neither.
	if clean := path.Clean(name); clean != name {
		return fmt.Errorf("section %s: write its name as %s", name, clean)
	}
	first, _, _ := strings.Cut(name, "/")
	if slices.Contains(sections, first) {
		return nil
	}
	for _, s := range sections {
		if strings.EqualFold(first, s) || suggest.Distance(first, s) <= 2 {
			return fmt.Errorf("section %s: did you mean %s? (a file of another name is only written into the case folder)", name, s)
		}
	}
	return nil
}

// checkComparisons refuses comparisons that would check nothing: a value
// other than "equal" or "differ" (a typo passed), fingerprints compared
// with no second request and no skills-b/, and a skills-b/ with no skills/
// to compare it with (it was compared with the --root catalog's fingerprint
// as if it were the case's own).
func (c *Case) checkComparisons() error {
	hasB := c.hasCatalog("skills-b")
	if hasB && !c.HasCatalog() {
		return errors.New("skills-b/ is compared with skills/, and the case has no skills/")
	}
	for _, w := range c.Wants {
		for key, v := range map[string]string{"fingerprints": w.Fingerprints, "catalog_fingerprints": w.CatalogFingerprints} {
			if v != "" && v != "equal" && v != "differ" {
				return fmt.Errorf("want.json: %s is %q; want \"equal\" or \"differ\"", key, v)
			}
		}
		if w.Fingerprints != "" && len(c.Requests) < 2 && !hasB {
			return errors.New("want.json: fingerprints compares two requests, or skills/ with skills-b/, and the case has one request and no skills-b/")
		}
		if err := w.checkNothingSkipped(); err != nil {
			return fmt.Errorf("want.json: %w", err)
		}
	}
	// A comparison of the whole case is one: entries that set it
	// differently left all but the first unchecked.
	if _, err := caseWide(c.Wants, "catalog_fingerprints", func(w Want) string { return w.CatalogFingerprints }); err != nil {
		return err
	}
	if !hasB {
		if _, err := caseWide(c.Wants, "fingerprints", func(w Want) string { return w.Fingerprints }); err != nil {
			return err
		}
	}
	return nil
}

// caseWide returns the value the entries of wants that set key give it,
// refusing entries that give it two values: the comparison is of the
// whole case (catalog_fingerprints; fingerprints across requests).
func caseWide(wants []Want, key string, of func(Want) string) (string, error) {
	v := ""
	for _, w := range wants {
		switch x := of(w); {
		case x == "":
		case v == "":
			v = x
		case x != v:
			return "", fmt.Errorf("want.json: %s compares the whole case, and its entries give it as both %q and %q", key, v, x)
		}
	}
	return v, nil
}

// checkNothingSkipped refuses an expectation that would pass whatever the
// compile did: a decision no compile reaches ("routed"), an empty string
// the prompt always contains, and, beside an error, what a compile that
// fails never gets to check.
func (w *Want) checkNothingSkipped() error {
	switch compiler.Decision(w.Decision) {
	case "", compiler.DecisionRoute, compiler.DecisionNoRoute, compiler.DecisionAmbiguous:
	default:
		return fmt.Errorf("decision is %q; want route, no_route or ambiguous", w.Decision)
	}
	for _, l := range []struct {
		key  string
		list []string
	}{{"includes", w.Includes}, {"excludes", w.Excludes}, {"diagnostics", w.Diagnostics}, {"prompt_contains", w.PromptContains}, {"prompt_excludes", w.PromptExcludes}} {
		if slices.Contains(l.list, "") {
			return fmt.Errorf("%s holds an empty string, which checks nothing", l.key)
		}
	}
	if w.Error == "" {
		return nil
	}
	var unchecked []string
	for key, given := range map[string]bool{
		"decision": w.Decision != "", "selected": w.Selected != nil, "includes": len(w.Includes) > 0, "excludes": len(w.Excludes) > 0,
		"rejected": len(w.Rejected) > 0, "diagnostics": len(w.Diagnostics) > 0, "prompt_contains": len(w.PromptContains) > 0,
		"prompt_excludes": len(w.PromptExcludes) > 0, "match": len(w.Match) > 0,
	} {
		if given {
			unchecked = append(unchecked, key)
		}
	}
	if len(unchecked) > 0 {
		slices.Sort(unchecked)
		return fmt.Errorf("error %q is checked alone: a compile that fails has no %s to check", w.Error, strings.Join(unchecked, ", "))
	}
	return nil
}

// sectionLines returns the line of the case file data on which each
// section's text starts (the first section of a name).
func sectionLines(data []byte) map[string]int {
	out := map[string]int{}
	for line := 1; len(data) > 0; line++ {
		l := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		l = bytes.TrimSuffix(l, []byte("\r"))
		if name, ok := bytes.CutPrefix(l, []byte("-- ")); ok {
			if name, ok = bytes.CutSuffix(name, []byte(" --")); ok {
				if key := string(bytes.TrimSpace(name)); out[key] == 0 {
					out[key] = line + 1
				}
			}
		}
	}
	return out
}

// atLine returns a section's text preceded by the blank lines that put its
// first line on the file's line first, so that a syntax error's line is
// the case file's, as an editor shows it (it was the section's).
func atLine(section []byte, first int) []byte {
	if first <= 1 {
		return section
	}
	return append(bytes.Repeat([]byte("\n"), first-1), section...)
}

// oneOrMany decodes one object or a list of them, each with its keys spelt
// exactly and given once (strictjson), as `rlmc serve` reads a request: a
// case whose "Deny" passed for deny would pin the wrong guarantee. It
// returns each entry's JSON beside it.
func oneOrMany[T any](data []byte) ([]T, []json.RawMessage, error) {
	// The section is decoded as written, blank lines around it and all,
	// after the lines before it (atLine), so that a syntax error's line
	// is the file's.
	raws := []json.RawMessage{data}
	if trimmed := bytes.TrimSpace(data); len(trimmed) > 0 && trimmed[0] == '[' {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, nil, strictjson.Explain(data, err)
		}
		if len(raws) == 0 {
			return nil, nil, fmt.Errorf("empty list")
		}
	}
	many := make([]T, len(raws))
	for i, raw := range raws {
		if err := strictjson.Unmarshal(raw, &many[i]); err != nil {
			return nil, nil, fmt.Errorf("%s%w", entry(i, len(raws)), strictjson.Explain(raw, err))
		}
	}
	return many, raws, nil
}

// nullKey returns the first key, in sorted order, of the JSON object raw
// whose value is null, or "".
func nullKey(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if string(bytes.TrimSpace(m[k])) == "null" {
			return k
		}
	}
	return ""
}

// entry names entry i of a list of n in an error ("entry 2: "); nothing
// for the one object of a file that holds no list.
func entry(i, n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf("entry %d: ", i+1)
}

// Files returns the case's archive files, for fuzz seeds.
func (c *Case) Files() map[string][]byte {
	out := map[string][]byte{}
	for _, f := range c.archive.Files {
		out[f.Name] = f.Data
	}
	return out
}

// HasCatalog reports whether the case brings its own skills/ catalog, as
// files or as a symlink at or under skills. A symlinks file that does not
// parse counts as a catalog: running such a case against the --root
// catalog would test something the case never meant, and materializing it
// fails the case anyway.
func (c *Case) HasCatalog() bool { return c.hasCatalog("skills") }

// hasCatalog reports whether the case brings the catalog folder dir
// (skills or skills-b), as files or as a symlink at or under it: a
// skills-b made by the symlinks file is compared as one made of files.
func (c *Case) hasCatalog(dir string) bool {
	if c.hasPrefix(dir + "/") {
		return true
	}
	links, err := c.links()
	if err != nil {
		return true
	}
	for _, l := range links {
		if l.name == dir || strings.HasPrefix(l.name, dir+"/") {
			return true
		}
	}
	return false
}

func (c *Case) hasPrefix(p string) bool {
	for _, f := range c.archive.Files {
		if strings.HasPrefix(f.Name, p) {
			return true
		}
	}
	return false
}

// Runner runs cases. Roots and Policy apply to cases without a catalog or
// a policy of their own.
type Runner struct {
	Roots  []string
	Policy compiler.Policy
	// TempDir makes the folders cases are materialized in.
	TempDir func() (string, error)
	// Audit, when set, records every compile of a case's requests as
	// `rlmc compile --trajectory` does, and Observe, when set, sees its
	// result or error: tests check both against the published JSON
	// Schema (package schema).
	Audit   *compiler.Audit
	Observe func(c *Case, res *compiler.Result, err error)

	// roots is the catalog of Roots under Policy, loaded once for every
	// case that brings neither a catalog nor a policy of its own: a
	// suite of fifty cases against a root of a thousand skills loaded
	// it fifty times.
	roots struct {
		once sync.Once
		c    *compiler.Compiler
		err  error
	}
}

// Outcome is the result of one case: its failures, empty when it passed.
type Outcome struct {
	Case     *Case
	Failures []string
}

// Passed reports whether the case passed.
func (o Outcome) Passed() bool { return len(o.Failures) == 0 }

// Run runs one case.
func (r *Runner) Run(ctx context.Context, c *Case) Outcome {
	out := Outcome{Case: c}
	fail := func(format string, args ...any) { out.Failures = append(out.Failures, fmt.Sprintf(format, args...)) }
	if c.Err != nil {
		fail("malformed case: %v", c.Err)
		return out
	}
	dir, err := r.tempDir()
	if err != nil {
		fail("%v", err)
		return out
	}
	defer os.RemoveAll(dir)
	if err := materialize(c, filepath.Join(dir, "a"), false); err != nil {
		fail("%v", err)
		return out
	}
	if err := materialize(c, filepath.Join(dir, "relocated", "elsewhere"), true); err != nil {
		fail("%v", err)
		return out
	}
	primary, err := r.compiler(ctx, c, filepath.Join(dir, "a"), "skills")
	if err != nil {
		fail("loading: %v", err)
		return out
	}
	if !c.HasCatalog() && len(primary.Catalog().Units) == 0 {
		// Against no skill, a case that says what must not load passes
		// whatever rlmc does: a root mistyped or a checkout missing
		// would turn a safety suite into a vacuous pass. (A case's own
		// skills/ may leave none on purpose: a policy excluding them.)
		fail("the catalog has no skill: nothing was checked (%s)", r.catalogWhere())
		return out
	}
	var (
		relocated, variant *compiler.Compiler
	)
	if c.HasCatalog() {
		if relocated, err = r.compiler(ctx, c, filepath.Join(dir, "relocated", "elsewhere"), "skills"); err != nil {
			fail("loading the relocated copy: %v", err)
			return out
		}
		if relocated.CatalogFingerprint() != primary.CatalogFingerprint() {
			fail("catalog fingerprint changed when the catalog was relocated and recreated in another order")
		}
	}
	if c.hasCatalog("skills-b") {
		if variant, err = r.compiler(ctx, c, filepath.Join(dir, "a"), "skills-b"); err != nil {
			fail("loading skills-b: %v", err)
			return out
		}
	}
	for _, w := range c.Wants {
		switch {
		case w.CatalogFingerprints == "":
			continue
		case variant == nil:
			fail("catalog_fingerprints compares skills/ with skills-b/, and the case has no skills-b/")
		case w.CatalogFingerprints == "equal" && variant.CatalogFingerprint() != primary.CatalogFingerprint():
			fail("catalog fingerprints of skills and skills-b differ; want equal")
		case w.CatalogFingerprints == "differ" && variant.CatalogFingerprint() == primary.CatalogFingerprint():
			fail("catalog fingerprints of skills and skills-b are equal; want them to differ")
		}
		break
	}
	var prints []string
	for i, req := range c.Requests {
		label := ""
		if len(c.Requests) > 1 {
			label = fmt.Sprintf("request %d: ", i+1)
		}
		var (
			res  *compiler.Result
			cerr error
		)
		if r.Audit != nil {
			res, cerr = r.Audit.Compile(ctx, primary, req.CompileRequest())
		} else {
			res, cerr = compile(ctx, primary, req)
		}
		if r.Observe != nil {
			r.Observe(c, res, cerr)
		}
		// The expectations read a unit's reason whether or not the result
		// lists it: they pin decisions, and listing decides nothing.
		var full *compiler.Result
		if res != nil {
			all := req
			all.AllRejected = true
			full, _ = compile(ctx, primary, all)
		}
		for _, f := range check(c.Wants[i], res, full, cerr) {
			fail("%s%s", label, f)
		}
		// A name no unit bears is never selected: excluding a typo of a
		// unit's name ("code-reveiw") checks nothing and passes for ever.
		// A name near none is a unit meant to be absent (one the host
		// policy excludes), which is what the case checks.
		// A name the case wants selected that no unit bears fails
		// anyway; it says why, not only that nothing was selected (a
		// documented example copied into a catalog without its skills).
		var wanted []string
		if w := c.Wants[i]; w.Selected != nil {
			wanted = append(wanted, *w.Selected...)
		}
		wanted = append(wanted, c.Wants[i].Includes...)
		for _, n := range compiler.UnknownUnits(primary, wanted) {
			hint := ""
			if meant := suggest.Closest(n, unitNames(primary), 2); meant != "" {
				hint = " (did you mean " + meant + "?)"
			}
			fail("%s%s: no unit is named so in the catalog%s", label, n, hint)
		}
		for _, n := range compiler.UnknownUnits(primary, c.Wants[i].Excludes) {
			if meant := suggest.Closest(n, unitNames(primary), 2); meant != "" {
				fail("%sexcludes %s: no unit is named so, and the case checks nothing (did you mean %s?)", label, n, meant)
			}
		}
		if res != nil {
			for _, f := range Invariants(primary, req.CompileRequest(), res) {
				fail("%s%s", label, f)
			}
			again, _ := compile(ctx, primary, req)
			if !sameJSON(res, again) {
				fail("%scompiling twice gave different JSON", label)
			}
			if relocated != nil {
				moved, _ := compile(ctx, relocated, req)
				if moved == nil || moved.Fingerprint != res.Fingerprint || moved.CatalogFingerprint != res.CatalogFingerprint {
					fail("%sfingerprint changed in a relocated copy created in another order", label)
				}
			}
			prints = append(prints, res.Fingerprint)
		}
		if variant != nil {
			other, verr := compile(ctx, variant, req)
			switch {
			case (verr == nil) != (cerr == nil):
				fail("%sskills and skills-b disagree on failing: %v / %v", label, cerr, verr)
			case res != nil && c.Wants[i].Fingerprints == "equal" && other.Fingerprint != res.Fingerprint:
				fail("%sfingerprints of skills and skills-b differ; want equal", label)
			case res != nil && c.Wants[i].Fingerprints == "differ" && other.Fingerprint == res.Fingerprint:
				fail("%sfingerprints of skills and skills-b are equal; want them to differ", label)
			}
		}
	}
	if variant == nil && len(prints) > 1 {
		want, _ := caseWide(c.Wants, "fingerprints", func(w Want) string { return w.Fingerprints })
		equal := true
		for _, p := range prints[1:] {
			equal = equal && p == prints[0]
		}
		if want == "equal" && !equal {
			fail("fingerprints differ across requests; want equal")
		}
		if want == "differ" && equal {
			fail("fingerprints are equal across requests; want them to differ")
		}
	}
	return out
}

func (r *Runner) tempDir() (string, error) {
	if r.TempDir != nil {
		return r.TempDir()
	}
	return os.MkdirTemp("", "rlmc-case-")
}

// catalogWhere names the roots a case without a catalog of its own runs
// against, for a failure.
func (r *Runner) catalogWhere() string {
	if len(r.Roots) == 0 {
		return "no skill root"
	}
	return "roots " + strings.Join(r.Roots, ", ")
}

// compiler loads the catalog a case runs against.
func (r *Runner) compiler(ctx context.Context, c *Case, dir, catalog string) (*compiler.Compiler, error) {
	p := r.Policy
	data, own := c.Files()["policy.yaml"]
	if own {
		var err error
		if p, err = compiler.ParsePolicy(data); err != nil {
			return nil, err
		}
		// Its roots are relative to the file, in the case folder, as a
		// policy file's are: read from where rlmc test ran, a case passed
		// or failed by the folder it was run from.
		for i, root := range p.Roots {
			if !filepath.IsAbs(root) {
				p.Roots[i] = filepath.Join(dir, root)
			}
		}
	}
	if c.HasCatalog() {
		return compiler.Load(ctx, loader.Options{Roots: []string{filepath.Join(dir, catalog)}}, p)
	}
	if own {
		return compiler.Load(ctx, loader.Options{Roots: r.Roots}, p)
	}
	r.roots.once.Do(func() { r.roots.c, r.roots.err = compiler.Load(ctx, loader.Options{Roots: r.Roots}, p) })
	return r.roots.c, r.roots.err
}

func compile(ctx context.Context, c *compiler.Compiler, req Request) (*compiler.Result, error) {
	return c.Compile(ctx, req.CompileRequest())
}

func sameJSON(a, b *compiler.Result) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Invariants returns every broken invariant of res, the result of req:
// the accounting (each unit of the catalog once in selected, rejected or
// the unlisted counts), the listing (compiled again with AllRejected, the
// same decisions; each entry listed the same as in the full list; every
// unit a rule of the policy rejected listed, and every unit bearing a name
// the request or the host policy names; of the units rule 1 left out,
// exactly the compiler.NearMisses best-scoring listed beside those; the
// others counted by reason), the prompt's shape (one <skills> block, one
// block per selected unit in order, nothing else that reads as a tag) and
// confinement (no unit read from outside its root).
func Invariants(c *compiler.Compiler, req compiler.Request, res *compiler.Result) []string {
	var out []string
	seen := map[string]int{}
	for _, s := range res.Selected {
		seen[entryKey(s.Root, s.Path)]++
	}
	for _, r := range res.Rejected {
		seen[entryKey(r.Root, r.Path)]++
	}
	unlisted := 0
	for _, code := range slices.Sorted(maps.Keys(res.Unlisted)) {
		if n := res.Unlisted[code]; !standing(code, 1) || n <= 0 {
			out = append(out, fmt.Sprintf("unlisted counts %d %s; want only a unit's standing, counted at least once", n, code))
		}
		unlisted += res.Unlisted[code]
	}
	if got, want := len(res.Selected)+len(res.Rejected)+unlisted, len(c.Catalog().Units); got != want {
		out = append(out, fmt.Sprintf("%d selected, %d rejected and %d unlisted add up to %d; want the catalog's %d units", len(res.Selected), len(res.Rejected), unlisted, got, want))
	}
	for _, u := range c.Catalog().Units {
		key := entryKey(u.Root, u.Path)
		if seen[key] > 1 {
			out = append(out, fmt.Sprintf("unit %s (%s) appears %d times in selected and rejected; want at most once", u.Name, u.Path, seen[key]))
		}
		delete(seen, key)
		if !confined(u.Root, u.File) {
			out = append(out, fmt.Sprintf("unit %s was read from %s, outside its root", u.Name, u.File))
		}
	}
	if len(seen) > 0 {
		out = append(out, fmt.Sprintf("%d result entries name no catalog unit", len(seen)))
	}
	out = append(out, listing(c, req, res)...)
	out = append(out, promptShape(res)...)
	return out
}

func entryKey(root, path string) string { return root + "\x00" + path }

// standing reports whether a rejection with code, decided by the rule
// numbered rule, is a unit's standing, which a result may count rather
// than list: rule 1's (evidence) no_evidence and below_threshold, shadowed
// and invalid. Rule 10's below_threshold is the policy's.
func standing(code compiler.ReasonCode, rule int) bool {
	switch code {
	case compiler.ReasonNoEvidence, compiler.ReasonShadowed, compiler.ReasonInvalid:
		return true
	case compiler.ReasonBelowThreshold:
		return rule == 1
	}
	return false
}

// listing checks what res lists against the full list: req compiled again
// with AllRejected.
func listing(c *compiler.Compiler, req compiler.Request, res *compiler.Result) []string {
	var out []string
	all := req
	all.AllRejected = true
	full, err := c.Compile(context.Background(), all)
	if err != nil {
		return []string{fmt.Sprintf("compiling with all_rejected failed: %v; want the same result, every unit listed", err)}
	}
	if len(full.Unlisted) != 0 {
		out = append(out, fmt.Sprintf("with all_rejected got unlisted %v; want none", full.Unlisted))
	}
	if full.Fingerprint != res.Fingerprint || full.Decision != res.Decision || full.Prompt != res.Prompt || !reflect.DeepEqual(full.Selected, res.Selected) {
		out = append(out, fmt.Sprintf("with all_rejected got %s %q; want the same decision as without, %s %q", full.Decision, full.Names(), res.Decision, res.Names()))
	}
	named := map[string]bool{}
	for _, names := range [][]string{req.Why, req.Select, req.Deny, c.Policy().Deny, c.Policy().Mandatory} {
		for _, n := range names {
			named[n] = true
		}
	}
	for _, e := range res.Events {
		if e.Kind == compiler.EventNegation {
			named[e.Unit] = true
		}
	}
	listed := map[string]compiler.Rejected{}
	for _, r := range res.Rejected {
		listed[entryKey(r.Root, r.Path)] = r
	}
	counted := map[compiler.ReasonCode]int{}
	var near, left []compiler.Rejected // rule 1's units with evidence, listed and left out
	for _, r := range full.Rejected {
		first := r.Reasons[0]
		got, ok := listed[entryKey(r.Root, r.Path)]
		switch {
		case ok && !reflect.DeepEqual(got, r):
			out = append(out, fmt.Sprintf("rejected %s: got an entry other than the full list's; want the same whichever way it is listed", r.Name))
		case !ok && !standing(first.Code, first.Rule.Number):
			out = append(out, fmt.Sprintf("rejected %s: got it unlisted; want it listed, as %s by %s", r.Name, first.Code, first.Rule))
		case !ok && named[r.Name]:
			out = append(out, fmt.Sprintf("rejected %s: got it unlisted; want it listed, as the request or the policy names it", r.Name))
		case !ok:
			counted[first.Code]++
		}
		if first.Code == compiler.ReasonBelowThreshold && first.Rule.Number == 1 && r.Score > 0 && !named[r.Name] {
			if ok {
				near = append(near, r)
			} else {
				left = append(left, r)
			}
		}
	}
	if len(counted) == 0 {
		counted = nil
	}
	unlisted := res.Unlisted
	if len(unlisted) == 0 {
		unlisted = nil
	}
	if !reflect.DeepEqual(counted, unlisted) {
		out = append(out, fmt.Sprintf("unlisted: got %v; want the counts of the units left out, %v", res.Unlisted, counted))
	}
	if !req.AllRejected {
		if want := min(compiler.NearMisses, len(near)+len(left)); len(near) < want {
			out = append(out, fmt.Sprintf("got %d of the units rule 1 left out with evidence listed; want the %d best", len(near), want))
		}
		for _, l := range left {
			for _, n := range near {
				if l.Score > n.Score {
					out = append(out, fmt.Sprintf("rejected %s (score %v): got it unlisted while %s (score %v) is listed; want the best-scoring listed", l.Name, l.Score, n.Name, n.Score))
				}
			}
		}
	}
	return out
}

// tagLike finds what a model could read as a skill tag, in text whose
// ignorable characters have been removed: "<" then optional spacing, an
// optional "/", optional spacing and "skill" or "skills" in any case.
var tagLike = regexp.MustCompile(`(?i)<[\s\p{Z}\p{Cc}]*/?[\s\p{Z}\p{Cc}]*skills?`)

// openTag finds the block openings the renderer writes: a body's, or a
// reference's (rule 12: the body did not fit the budget).
var openTag = regexp.MustCompile(`<skill name="([^"]*)"( rendering="reference")?>`)

// promptShape checks the prompt's structure: empty without a selection;
// otherwise one <skills> block holding one <skill name="NAME"> block per
// selected unit, in selection order, and nothing else that reads as a tag
// once invisible characters are removed. A forged name or an unescaped
// body breaks one of these.
func promptShape(res *compiler.Result) []string {
	var out []string
	if len(res.Selected) == 0 {
		if res.Prompt != "" {
			out = append(out, "prompt is not empty with nothing selected")
		}
		return out
	}
	p := res.Prompt
	if !strings.HasPrefix(p, "<skills>\n") || !strings.HasSuffix(p, "</skills>\n") {
		out = append(out, "prompt does not start with <skills> and end with </skills>")
	}
	var names, refs, wantRefs []string
	for _, m := range openTag.FindAllStringSubmatch(p, -1) {
		names = append(names, m[1])
		if m[2] != "" {
			refs = append(refs, m[1])
		}
	}
	if want := res.Names(); !slices.Equal(names, want) {
		out = append(out, fmt.Sprintf("prompt opens skill blocks %q; want one per selected unit %q", names, want))
	}
	for _, s := range res.Selected {
		if s.Rendering == compiler.RenderingReference {
			wantRefs = append(wantRefs, s.Name)
		}
	}
	if !slices.Equal(refs, wantRefs) {
		out = append(out, fmt.Sprintf("prompt renders %q as references; want %q, the units selected so", refs, wantRefs))
	}
	if n := strings.Count(p, "</skill>\n"); n != len(res.Selected) {
		out = append(out, fmt.Sprintf("prompt closes %d skill blocks for %d selected units", n, len(res.Selected)))
	}
	if n, want := len(tagLike.FindAllStringIndex(ir.StripIgnorable(p), -1)), 2+2*len(res.Selected); n != want {
		out = append(out, fmt.Sprintf("prompt holds %d tag-like texts once invisible characters are removed; want %d (one <skills> block, one block per selected unit)", n, want))
	}
	return out
}

func confined(root, file string) bool {
	if file == "" {
		return true
	}
	real, err := filepath.EvalSymlinks(root)
	if err == nil {
		real, err = filepath.Abs(real)
	}
	if err != nil {
		return false
	}
	file, err = filepath.Abs(file)
	return err == nil && loader.Within(real, file)
}

// unitNames returns the names of c's units.
func unitNames(c *compiler.Compiler) []string {
	units := c.Catalog().Units
	out := make([]string, len(units))
	for i, u := range units {
		out[i] = u.Name
	}
	return out
}
